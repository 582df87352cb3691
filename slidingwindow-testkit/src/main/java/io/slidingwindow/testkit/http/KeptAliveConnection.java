package io.slidingwindow.testkit.http;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

/**
 * One kept-alive HTTP/1.1 connection to a loopback port, over a plain socket: requests go out as
 * written, several in one write when pipelined, and each answer is read whole (by {@code
 * Content-Length} or chunked) before the next. For tests of how a server serves a connection after
 * a given exchange. Not thread-safe.
 */
public final class KeptAliveConnection implements AutoCloseable {

  private final Socket socket;
  private final OutputStream out;
  private final InputStream in;
  private final Duration timeout;

  private KeptAliveConnection(Socket socket, Duration timeout) throws IOException {
    this.socket = socket;
    this.out = socket.getOutputStream();
    this.in = new BufferedInputStream(socket.getInputStream());
    this.timeout = timeout;
  }

  /**
   * Opens a connection to {@code port} on the loopback address; each read waits at most {@code
   * timeout}.
   */
  public static KeptAliveConnection open(int port, Duration timeout) {
    try {
      Socket socket = new Socket(InetAddress.getLoopbackAddress(), port);
      socket.setSoTimeout(Math.toIntExact(timeout.toMillis()));
      return new KeptAliveConnection(socket, timeout);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The bytes of {@code GET path HTTP/1.1} with {@code Host} and {@code headers} (name and value in
   * turn), keeping the connection alive.
   */
  public static byte[] get(String path, String... headers) {
    StringBuilder request = new StringBuilder("GET ").append(path).append(" HTTP/1.1\r\n");
    request.append("Host: 127.0.0.1\r\n");
    for (int i = 0; i + 1 < headers.length; i += 2) {
      request.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
    }
    return request.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII);
  }

  /** Writes {@code requests} in one write: more than one is a pipeline. */
  public void send(byte[]... requests) {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    for (byte[] request : requests) {
      all.writeBytes(request);
    }
    try {
      out.write(all.toByteArray());
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Reads the next whole answer and returns its status.
   *
   * @throws AssertionError if no answer came within the timeout, naming what was waited for
   * @throws UncheckedIOException if the server closed the connection or the answer is malformed
   */
  public int status(String what) {
    try {
      return readStatus();
    } catch (SocketTimeoutException e) {
      throw new AssertionError(what + " got no answer within " + timeout, e);
    } catch (IOException e) {
      throw new UncheckedIOException(what + ": " + e.getMessage(), e);
    }
  }

  private int readStatus() throws IOException {
    String[] statusLine = line().split(" ");
    if (statusLine.length < 2) {
      throw new IOException("not a status line: " + String.join(" ", statusLine));
    }
    int status = Integer.parseInt(statusLine[1]);
    long length = 0;
    boolean chunked = false;
    for (String header = line(); !header.isEmpty(); header = line()) {
      String lower = header.toLowerCase(Locale.ROOT);
      if (lower.startsWith("content-length:")) {
        length = Long.parseLong(lower.substring("content-length:".length()).trim());
      } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
        chunked = true;
      }
    }
    if (!chunked) {
      skip(length);
      return status;
    }
    for (long size = Long.parseLong(line().trim(), 16); size > 0; ) {
      skip(size);
      line();
      size = Long.parseLong(line().trim(), 16);
    }
    line();
    return status;
  }

  private String line() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b = in.read(); b != '\n'; b = in.read()) {
      if (b < 0) {
        throw new IOException("the server closed the connection");
      }
      if (b != '\r') {
        line.write(b);
      }
    }
    return line.toString(StandardCharsets.US_ASCII);
  }

  private void skip(long count) throws IOException {
    for (long i = 0; i < count; i++) {
      if (in.read() < 0) {
        throw new IOException("the server closed the connection");
      }
    }
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
