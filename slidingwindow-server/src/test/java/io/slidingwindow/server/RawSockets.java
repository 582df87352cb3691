package io.slidingwindow.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * HTTP/1.1 written and read by hand over sockets to the service's HTTP port, for what a client
 * library would not send or would hide; closing it closes every socket it opened.
 */
final class RawSockets implements AutoCloseable {

  /** A decision on one descriptor of domain {@code api}: key {@code client}, value {@code c}. */
  static final String DECIDE =
      "{\"domain\": \"api\", \"descriptors\": [{\"entries\": [{\"key\": \"client\","
          + " \"value\": \"c\"}]}]}";

  private final List<Socket> sockets = new ArrayList<>();

  /** A connection to {@code port} on the loopback address, whose reads wait at most 10 seconds. */
  Socket open(int port) throws IOException {
    Socket socket = new Socket(InetAddress.getLoopbackAddress(), port);
    socket.setSoTimeout(10_000);
    sockets.add(socket);
    return socket;
  }

  @Override
  public void close() throws IOException {
    for (Socket socket : sockets) {
      socket.close();
    }
  }

  /** A decide request, whole, carrying {@code body}. */
  static String request(String body) {
    return "POST /v1/decide HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + "Content-Length: "
        + body.length()
        + "\r\n\r\n"
        + body;
  }

  static void send(Socket socket, String text) throws IOException {
    socket.getOutputStream().write(text.getBytes(StandardCharsets.US_ASCII));
    socket.getOutputStream().flush();
  }

  /** One response: its head, and a body of its Content-Length; empty if the connection closed. */
  static String readResponse(Socket socket) throws IOException {
    InputStream in = socket.getInputStream();
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        break;
      }
      head.write(b);
    }
    String text = head.toString(StandardCharsets.US_ASCII);
    int at = text.toLowerCase(Locale.ROOT).indexOf("content-length:");
    int length =
        at < 0 ? 0 : Integer.parseInt(text.substring(at + 15, text.indexOf('\r', at)).trim());
    return text + new String(in.readNBytes(length), StandardCharsets.UTF_8);
  }

  /** Everything until the server closes the connection, which it must do {@code within}. */
  static String readUntilClosed(Socket socket, Duration within) throws IOException {
    socket.setSoTimeout(Math.toIntExact(within.toMillis()));
    try {
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    } catch (SocketTimeoutException e) {
      throw new AssertionError("the server did not close the connection within " + within, e);
    } catch (SocketException e) {
      return ""; // reset: closed with the request unread
    }
  }
}
