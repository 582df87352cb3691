package io.slidingwindow.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.LogCapture;
import io.slidingwindow.testkit.redis.WithoutRedisServer;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the admin port tells the operator about the requests it refuses (401 without the token, 403
 * at a Host it does not answer or from a browser, 415): each counted in {@code /metrics} by reason,
 * and logged without flooding the log when a page left open at a refused name polls every second;
 * and, at start-up, that a host list given beside a token is unused. Requests are written by hand,
 * so that the test chooses the {@code Host}; log records are captured from {@code
 * java.util.logging}, which {@code System.Logger} writes to.
 */
@WithoutRedisServer
class AdminRefusalsIT {

  private static final String AUDIT = "io.slidingwindow.server.admin.audit";

  @TempDir Path dir;
  private RateLimitServer server;

  /**
   * Every record of the service's loggers while a test runs, at their configured levels; the audit
   * logger's DEBUG ones too, which {@link #auditAtAll} lets through.
   */
  private LogCapture logged;

  private LogCapture auditAtAll;

  @BeforeEach
  void capture() {
    auditAtAll = LogCapture.of(AUDIT);
    logged = LogCapture.atConfiguredLevel("io.slidingwindow.server");
  }

  @AfterEach
  void stop() {
    logged.close();
    auditAtAll.close();
    if (server != null) {
      server.close();
    }
  }

  private RateLimitServer.Builder builder() throws Exception {
    return TestServers.onLoopback(TestServers.clientConfig(dir, "minute", 2));
  }

  private List<String> lines(Level level, String containing) {
    return logged.messages(level).stream().filter(m -> m.contains(containing)).toList();
  }

  @Test
  void start_withTokenAndAllowedHosts_oneWarn_thatTheListIsUnused() throws Exception {
    try (RateLimitServer both =
        builder()
            .adminToken("s3cret".toCharArray())
            .adminAllowedHosts(List.of("a.example"))
            .start()) {
      assertThat(lines(Level.WARNING, "--admin-allowed-hosts"))
          .singleElement()
          .asString()
          .contains("admin token", "every Host");
    }
    logged.clear();
    try (RateLimitServer tokenOnly = builder().adminToken("s3cret".toCharArray()).start();
        RateLimitServer hostsOnly = builder().adminAllowedHosts(List.of("a.example")).start()) {
      assertThat(lines(Level.WARNING, "--admin-allowed-hosts")).isEmpty();
    }
  }

  @Test
  void refusals_withoutToken_countedByReason_inTheMetrics() throws Exception {
    server = builder().start();
    String rebound = "rebound.test:" + server.adminPort();

    for (int i = 0; i < 3; i++) {
      assertThat(send("GET", "/v1/dashboard", rebound, null)).startsWith("HTTP/1.1 403 ");
    }
    // The override paths want the loopback's address among IP addresses.
    assertThat(send("GET", "/v1/overrides", "10.0.0.7", null)).startsWith("HTTP/1.1 403 ");
    assertThat(send("PUT", "/v1/overrides", "127.0.0.1", "Origin: http://127.0.0.1"))
        .startsWith("HTTP/1.1 403 ");
    assertThat(send("DELETE", "/v1/quota", "127.0.0.1", "Sec-Fetch-Site: same-origin"))
        .startsWith("HTTP/1.1 403 ");
    assertThat(send("POST", "/v1/quota", "127.0.0.1", "Content-Type: text/plain"))
        .startsWith("HTTP/1.1 415 ");

    assertThat(send("GET", "/metrics", "127.0.0.1", null))
        .contains(
            "slidingwindow_server_request_errors_total{reason=\"host_not_allowed\","
                + "transport=\"admin\"} 4.0",
            "slidingwindow_server_request_errors_total{reason=\"browser_origin\","
                + "transport=\"admin\"} 2.0",
            "slidingwindow_server_request_errors_total{reason=\"unsupported_media_type\","
                + "transport=\"admin\"} 1.0");
  }

  @Test
  void refusals_withToken_missingOrWrong_countedAsUnauthorized() throws Exception {
    server = builder().adminToken("s3cret".toCharArray()).start();

    assertThat(send("GET", "/metrics", "127.0.0.1", null)).startsWith("HTTP/1.1 401 ");
    assertThat(send("GET", "/v1/dashboard", "rebound.test", null)).startsWith("HTTP/1.1 401 ");
    assertThat(send("GET", "/v1/stats", "127.0.0.1", "Authorization: Bearer wrong"))
        .startsWith("HTTP/1.1 401 ");

    assertThat(send("GET", "/metrics", "127.0.0.1", "Authorization: Bearer s3cret"))
        .contains(
            "slidingwindow_server_request_errors_total{reason=\"unauthorized\","
                + "transport=\"admin\"} 3.0");
  }

  @Test
  void refusals_aPageLeftOpenAtARefusedName_firstPerReasonAndHostAtInfo_laterAtDebug()
      throws Exception {
    server = builder().start();
    String rebound = "rebound.test:" + server.adminPort();

    for (int i = 0; i < 5; i++) {
      assertThat(send("GET", "/v1/dashboard", rebound, null)).startsWith("HTTP/1.1 403 ");
    }
    for (int i = 0; i < 2; i++) {
      assertThat(send("GET", "/v1/stats", "other.test", null)).startsWith("HTTP/1.1 403 ");
    }

    assertThat(lines(Level.INFO, "rebound.test"))
        .singleElement()
        .asString()
        .contains("host_not_allowed", "403", "client=127.0.0.1", "--admin-allowed-hosts");
    assertThat(lines(Level.FINE, "rebound.test")).hasSize(4);
    assertThat(lines(Level.INFO, "other.test")).hasSize(1);
    assertThat(lines(Level.FINE, "other.test")).hasSize(1);
    assertThat(logged.records())
        .filteredOn(r -> LogCapture.formatted(r).contains("rebound.test"))
        .as("the lines on the audit logger")
        .allSatisfy(r -> assertThat(r.getLoggerName()).isEqualTo(AUDIT));
  }

  /**
   * The answer (status line, headers, body) to a request written by hand with {@code host} as its
   * Host and {@code header} (a line, or null).
   */
  private String send(String method, String path, String host, String header) throws Exception {
    try (Socket socket = new Socket("127.0.0.1", server.adminPort())) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(
          (method
                  + " "
                  + path
                  + " HTTP/1.1\r\nHost: "
                  + host
                  + "\r\n"
                  + (header == null ? "" : header + "\r\n")
                  + "Content-Length: 0\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      // One answer, not everything until the close: a refusal's connection stays open a second.
      return RawSockets.readResponse(socket);
    }
  }
}
