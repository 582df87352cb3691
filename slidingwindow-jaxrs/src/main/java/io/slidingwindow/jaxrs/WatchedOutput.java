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

  // What pass() does to the stream below: one try/catch for all four, and nothing allocated.
  private static final int WRITE_BYTE = 0;
  private static final int WRITE = 1;
  private static final int FLUSH = 2;
  private static final int CLOSE = 3;

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
    pass(WRITE_BYTE, null, b, 0);
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    pass(WRITE, b, off, len);
  }

  @Override
  public void flush() throws IOException {
    pass(FLUSH, null, 0, 0);
  }

  @Override
  public void close() throws IOException {
    pass(CLOSE, null, 0, 0);
  }

  /**
   * Does {@code operation} on the stream below ({@code off} is the byte of {@link #WRITE_BYTE}),
   * noting an {@link IOException} before passing it on.
   */
  private void pass(int operation, byte[] b, int off, int len) throws IOException {
    try {
      switch (operation) {
        case WRITE_BYTE -> out.write(off);
        case WRITE -> out.write(b, off, len);
        case FLUSH -> out.flush();
        case CLOSE -> out.close();
        default -> throw new AssertionError("operation " + operation);
      }
    } catch (IOException e) {
      failed = true;
      throw e;
    }
  }
}
