package io.slidingwindow.testkit.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * Sends one HTTP/1.1 request line as given, byte for byte, over a plain socket to a loopback port:
 * for targets that {@code java.net.http} would refuse or rewrite ({@code ..;}, backslashes, bad
 * percent-encodings, absolute form), and from a chosen loopback address, so that one test can be
 * many clients. Thread-safe: each call opens its own connection.
 */
public final class RawHttp {

  /**
   * The status and the raw response head and body.
   *
   * @param status the status code of the status line
   * @param head the status line and the header fields, as received
   * @param body the body, as UTF-8
   */
  public record Response(int status, String head, String body) {
    /** Whether the response's content type is {@code application/problem+json}. */
    public boolean isProblemJson() {
      return head.toLowerCase(Locale.ROOT).contains("content-type: application/problem+json");
    }

    /** The value of the first header field named {@code name} (any case), or null. */
    public String header(String name) {
      for (String line : head.split("\r\n")) {
        int colon = line.indexOf(':');
        if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) {
          return line.substring(colon + 1).trim();
        }
      }
      return null;
    }
  }

  private RawHttp() {}

  /**
   * Sends {@code GET target HTTP/1.1} with {@code Connection: close} and reads the whole answer,
   * within 10 s.
   *
   * @param target the request-target, sent as UTF-8 bytes
   */
  public static Response get(int port, String target) {
    return send(InetAddress.getLoopbackAddress(), port, "GET", target, List.of());
  }

  /**
   * Sends {@code method target HTTP/1.1} with {@code headers} (name and value in turn, each line as
   * given) and {@code Connection: close} from the local address {@code from} (any address of
   * 127.0.0.0/8 works on Linux, so that a test can be many clients), and reads the whole answer,
   * within 10 s.
   *
   * @param target the request-target, sent as UTF-8 bytes
   */
  public static Response send(
      InetAddress from, int port, String method, String target, List<String> headers) {
    StringBuilder head =
        new StringBuilder(method)
            .append(' ')
            .append(target)
            .append(" HTTP/1.1\r\nHost: 127.0.0.1:")
            .append(port)
            .append("\r\n");
    for (int i = 0; i + 1 < headers.size(); i += 2) {
      head.append(headers.get(i)).append(": ").append(headers.get(i + 1)).append("\r\n");
    }
    head.append("Connection: close\r\n\r\n");
    try (Socket socket = new Socket()) {
      socket.bind(new InetSocketAddress(from, 0));
      socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5_000);
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(head.toString().getBytes(StandardCharsets.UTF_8));
      out.flush();
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      byte[] buffer = new byte[8192];
      for (int n; (n = in.read(buffer)) >= 0 && bytes.size() < 1_000_000; ) {
        bytes.write(buffer, 0, n);
      }
      String text = bytes.toString(StandardCharsets.ISO_8859_1);
      int split = text.indexOf("\r\n\r\n");
      String responseHead = split < 0 ? text : text.substring(0, split);
      String body = split < 0 ? "" : text.substring(split + 4);
      String[] statusLine = responseHead.split(" ", 3);
      int status = statusLine.length > 1 ? Integer.parseInt(statusLine[1].trim()) : -1;
      return new Response(status, responseHead, body);
    } catch (IOException e) {
      throw new IllegalStateException(method + " " + target + " from " + from + " failed", e);
    }
  }
}
