package io.slidingwindow.jaxrs;

import java.io.IOException;
import java.io.OutputStream;

/**
 * The stream an answer's entity is written to, which notes whether any write, flush or close failed
 * with an {@link IOException} (a client gone), whatever was done with the exception after: an
 * application's writer interceptor that ignores a client gone (catches the exception and returns)
 * cannot make a failed answer look written.
 */
final class WatchedOutput extends OutputStream {

  private final OutputStream out;
  private volatile boolean failed;

  WatchedOutput(OutputStream out) {
    this.out = out;
  }

  /** Whether a write, flush or close of this stream threw an {@link IOException}. */
  boolean failed() {
    return failed;
  }

  @Override
  public void write(int b) throws IOException {
    try {
      out.write(b);
    } catch (IOException e) {
      failed = true;
      throw e;
    }
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    try {
      out.write(b, off, len);
    } catch (IOException e) {
      failed = true;
      throw e;
    }
  }

  @Override
  public void flush() throws IOException {
    try {
      out.flush();
    } catch (IOException e) {
      failed = true;
      throw e;
    }
  }

  @Override
  public void close() throws IOException {
    try {
      out.close();
    } catch (IOException e) {
      failed = true;
      throw e;
    }
  }
}
