package io.slidingwindow.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.redis.WithoutRedisServer;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The request line's target on the real ports, written by hand: the absolute-form, which a server
 * MUST accept (RFC 9112 §3.2.2), routes on its URI's path, and its authority stands in for the
 * {@code Host} header, on the admin port's host rule too; the asterisk-form and the authority-form
 * are answered 400, not a 404 for a path nobody sent.
 */
@WithoutRedisServer
class RequestTargetIT {

  private static final String DECIDE =
      "{\"domain\": \"api\", \"descriptors\": [{\"entries\": [{\"key\": \"client\","
          + " \"value\": \"c1\"}]}]}";

  @TempDir Path dir;
  private RateLimitServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void decide_absoluteForm_isRoutedOnTheUrisPath_andCounted() throws Exception {
    server = TestServers.onLoopback(TestServers.clientConfig(dir, "minute", 2)).start();
    int port = server.httpPort();
    String absolute = "http://127.0.0.1:" + port + "/v1/decide";

    assertThat(post(port, absolute, "127.0.0.1")).startsWith("HTTP/1.1 200 ");
    assertThat(post(port, "HTTP://127.0.0.1:" + port + "/v1/decide?x=1", "127.0.0.1"))
        .startsWith("HTTP/1.1 200 ");
    assertThat(post(port, "/v1/decide", "127.0.0.1"))
        .as("the same count, whichever form")
        .startsWith("HTTP/1.1 429 ");
    assertThat(send(port, "GET", "http://127.0.0.1:" + port, "127.0.0.1", null))
        .as("an absolute URI without a path is for /")
        .startsWith("HTTP/1.1 404 ")
        .contains("no such endpoint: /\"");
  }

  @Test
  void admin_absoluteForm_itsAuthorityTakesThePlaceOfHost() throws Exception {
    server = TestServers.onLoopback(TestServers.clientConfig(dir, "minute", 2)).start();
    int port = server.adminPort();
    String local = "http://127.0.0.1:" + port;

    assertThat(send(port, "GET", local + "/v1/stats", "127.0.0.1", null))
        .startsWith("HTTP/1.1 200 ");
    assertThat(send(port, "GET", "http://rebound.test:" + port + "/v1/stats", "127.0.0.1", null))
        .as("a foreign authority, though Host is allowed")
        .startsWith("HTTP/1.1 403 ")
        .contains("--admin-allowed-hosts");
    assertThat(send(port, "GET", "http://rebound.test/v1/overrides", null, null))
        .startsWith("HTTP/1.1 403 ");
    assertThat(send(port, "GET", local + "/v1/stats", "rebound.test:" + port, null))
        .as("an allowed authority, though Host is foreign: the authority wins (RFC 9112 §3.2.2)")
        .startsWith("HTTP/1.1 200 ");
    assertThat(send(port, "GET", local + "/v1/overrides", "rebound.test", null))
        .as("the override routes' own host rule reads the authority too")
        .startsWith("HTTP/1.1 200 ");
  }

  @Test
  void asteriskAndAuthorityForms_areRefusedWith400() throws Exception {
    server = TestServers.onLoopback(TestServers.clientConfig(dir, "minute", 2)).start();
    for (int port : new int[] {server.httpPort(), server.adminPort()}) {
      assertThat(send(port, "OPTIONS", "*", "127.0.0.1", null))
          .startsWith("HTTP/1.1 400 ")
          .contains("asterisk-form");
      assertThat(send(port, "CONNECT", "127.0.0.1:" + port, "127.0.0.1", null))
          .startsWith("HTTP/1.1 400 ")
          .contains("authority-form");
      assertThat(send(port, "GET", "http://user@127.0.0.1/livez", "127.0.0.1", null))
          .startsWith("HTTP/1.1 400 ")
          .contains("no user information");
    }
  }

  /**
   * Odd authorities on the admin port's host rule, pinned as answered: a loopback name in another
   * spelling is served; anything that could name a foreign host fails closed (403, or 400 for a
   * target not served), never an admin action.
   */
  @ParameterizedTest(name = "{0} {1} (Host {2})")
  @CsvSource(
      delimiter = '|',
      nullValues = "none",
      value = {
        "HTTP/1.1 | http://[::1]:PORT/v1/stats      | rebound.test | 200",
        "HTTP/1.1 | http://LOCALHOST:PORT/v1/stats  | rebound.test | 200",
        "HTTP/1.1 | http://localhost.:PORT/v1/stats | 127.0.0.1    | 403",
        "HTTP/1.1 | http://127%2E0.0.1:PORT/v1/stats | 127.0.0.1   | 403",
        "HTTP/1.1 | http://rebound%2Etest/v1/stats  | 127.0.0.1    | 403",
        "HTTP/1.1 | ftp://127.0.0.1:PORT/v1/stats   | 127.0.0.1    | 400",
        "HTTP/1.0 | http://rebound.test/v1/stats    | 127.0.0.1    | 403",
        "HTTP/1.0 | http://rebound.test/v1/stats    | none         | 403",
        "HTTP/1.0 | http://127.0.0.1:PORT/v1/stats  | rebound.test | 200",
      })
  void admin_oddAuthorities_failClosed(String version, String target, String host, int status)
      throws Exception {
    server = TestServers.onLoopback(TestServers.clientConfig(dir, "minute", 2)).start();
    int port = server.adminPort();
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(
          ("GET "
                  + target.replace("PORT", String.valueOf(port))
                  + " "
                  + version
                  + "\r\n"
                  + (host == null ? "" : "Host: " + host + "\r\n")
                  + "Connection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(answer).matches("(?s)HTTP/1\\.[01] " + status + " .*");
      assertThat(answer.contains("\"rules\"")).as("the stats served").isEqualTo(status == 200);
    }
  }

  private static String post(int port, String target, String host) throws Exception {
    byte[] body = DECIDE.getBytes(StandardCharsets.UTF_8);
    return send(
        port,
        "POST",
        target,
        host,
        "Content-Type: application/json\r\nContent-Length: " + body.length + "\r\n\r\n" + DECIDE);
  }

  /**
   * The answer to {@code method target} written by hand, with {@code host} as its Host (none when
   * null) and {@code rest} (more header lines, a blank line and a body) or no body.
   */
  private static String send(int port, String method, String target, String host, String rest)
      throws Exception {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(
          (method
                  + " "
                  + target
                  + " HTTP/1.1\r\n"
                  + (host == null ? "" : "Host: " + host + "\r\n")
                  + "Connection: close\r\n"
                  + (rest == null ? "\r\n" : rest))
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
