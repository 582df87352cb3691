package io.slidingwindow.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.redis.WithoutRedisServer;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin port without a token, as a web page in the operator's browser reaches it: a page whose
 * host name its owner rebinds to 127.0.0.1 is of the port's origin for the browser, and its
 * requests name its own host in {@code Host}; over plain HTTP they carry no {@code Sec-Fetch-Site},
 * and a {@code GET} no {@code Origin}. Such requests are refused on every path, with or without
 * those headers; at {@code localhost}, an IP address or an allowed name they are served; with a
 * token, the token alone decides. Requests are written by hand, so that the test chooses the {@code
 * Host}.
 */
@WithoutRedisServer
class AdminHostsIT {

  private static final List<String> READS =
      List.of("/v1/dashboard", "/v1/config", "/v1/stats", "/v1/overrides", "/metrics", "/");

  @TempDir Path dir;
  private RateLimitServer server;

  private RateLimitServer.Builder builder() throws Exception {
    return TestServers.onLoopback(TestServers.clientConfig(dir, "minute", 2));
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void withoutToken_aReboundName_isRefusedOnEveryPath_withOrWithoutBrowserHeaders()
      throws Exception {
    server = builder().start();
    String rebound = "rebound.test:" + server.adminPort();

    for (String headers :
        Arrays.asList(null, "Sec-Fetch-Site: same-origin", "Origin: http://" + rebound)) {
      for (String path : READS) {
        String answer = send("GET", path, rebound, headers);
        assertThat(answer)
            .as(path + " with " + headers)
            .startsWith("HTTP/1.1 403 ")
            .contains("--admin-allowed-hosts")
            .doesNotContain("\"domains\"");
      }
    }
    // Before routing: an unknown path, another spelling or a write reveals nothing either.
    assertThat(send("GET", "/v1/dashboard/", rebound, null)).startsWith("HTTP/1.1 403 ");
    assertThat(send("GET", "/nothing", rebound, null)).startsWith("HTTP/1.1 403 ");
    assertThat(send("DELETE", "/v1/quota", rebound, null)).startsWith("HTTP/1.1 403 ");
    assertThat(send("GET", "/v1/dashboard", "REBOUND.test", null)).startsWith("HTTP/1.1 403 ");
    // Names that only start like an admitted one, and a malformed Host.
    for (String host :
        List.of("127.0.0.1.rebound.test", "localhost.rebound.test:80", "localhost:x", "", "[::1")) {
      assertThat(send("GET", "/v1/stats", host, null)).as(host).startsWith("HTTP/1.1 403 ");
    }
  }

  @Test
  void withoutToken_localhostOrAnIpAddress_isServed() throws Exception {
    server = builder().start();
    int port = server.adminPort();

    for (String host :
        List.of(
            "127.0.0.1:" + port,
            "localhost:" + port,
            "[::1]:" + port,
            "LocalHost:" + port,
            "127.0.0.1",
            "[::1]")) {
      for (String path : READS) {
        assertThat(send("GET", path, host, null)).as(host + path).startsWith("HTTP/1.1 200 ");
        assertThat(send("GET", path, host, "Sec-Fetch-Site: same-origin"))
            .as(host + path)
            .startsWith("HTTP/1.1 200 ");
      }
    }
    // Any IP address (the override paths want the loopback's), and no Host at all (no browser).
    assertThat(send("GET", "/v1/dashboard", "10.0.0.7:" + port, null)).startsWith("HTTP/1.1 200 ");
    assertThat(send("GET", "/v1/overrides", "10.0.0.7", null)).startsWith("HTTP/1.1 403 ");
    assertThat(send("GET", "/metrics", null, null)).startsWith("HTTP/1.1 200 ");
  }

  @Test
  void withoutToken_anAllowedName_isServed_andAnotherNameRefused() throws Exception {
    server = builder().adminAllowedHosts(List.of(" ", "Admin.Example")).start();
    int port = server.adminPort();

    for (String path : READS) {
      assertThat(send("GET", path, "admin.example:" + port, "Sec-Fetch-Site: same-origin"))
          .as(path)
          .startsWith("HTTP/1.1 200 ");
      assertThat(send("GET", path, "ADMIN.EXAMPLE", null)).as(path).startsWith("HTTP/1.1 200 ");
    }
    assertThat(send("GET", "/v1/dashboard", "rebound.test:" + port, null))
        .startsWith("HTTP/1.1 403 ");
    assertThat(send("GET", "/v1/dashboard", "sub.admin.example:" + port, null))
        .startsWith("HTTP/1.1 403 ");
  }

  @Test
  void withToken_theTokenAloneDecides() throws Exception {
    server = builder().adminToken("s3cret".toCharArray()).start();
    String rebound = "rebound.test:" + server.adminPort();

    for (String path : READS) {
      assertThat(send("GET", path, rebound, "Authorization: Bearer s3cret"))
          .as(path)
          .startsWith("HTTP/1.1 200 ");
      assertThat(send("GET", path, "slidingwindow-server:6070", "Authorization: Bearer s3cret"))
          .as(path)
          .startsWith("HTTP/1.1 200 ");
      assertThat(send("GET", path, rebound, null)).as(path).startsWith("HTTP/1.1 401 ");
      assertThat(send("GET", path, "127.0.0.1", null)).as(path).startsWith("HTTP/1.1 401 ");
    }
  }

  /**
   * The answer (status line, headers, body) to a request written by hand with {@code host} as its
   * Host (none when null) and {@code headers} (lines, or null).
   */
  private String send(String method, String path, String host, String headers) throws Exception {
    try (Socket socket = new Socket("127.0.0.1", server.adminPort())) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(
          (method
                  + " "
                  + path
                  + " HTTP/1.1\r\n"
                  + (host == null ? "" : "Host: " + host + "\r\n")
                  + (headers == null ? "" : headers + "\r\n")
                  + "Connection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      // One answer, not everything until the close: a refusal's connection stays open a second.
      return RawSockets.readResponse(socket);
    }
  }
}
