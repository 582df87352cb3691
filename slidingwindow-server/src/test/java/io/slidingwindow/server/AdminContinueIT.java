package io.slidingwindow.server;

import static io.slidingwindow.server.RawSockets.readResponse;
import static io.slidingwindow.server.RawSockets.readUntilClosed;
import static io.slidingwindow.server.RawSockets.send;
import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.redis.WithoutRedisServer;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code Expect: 100-continue} on the admin port, over raw sockets: a request without the token, or
 * at a {@code Host} the port does not answer, is refused on its head (401, 403, {@code Connection:
 * close}) rather than told to send its body (up to 1 MiB, read and held before the token was looked
 * at); a request with the token is still answered {@code 100 Continue}.
 */
@WithoutRedisServer
class AdminContinueIT {

  private static final String TOKEN = "s3cret-admin-token";

  @TempDir Path dir;
  private RateLimitServer server;
  private final RawSockets sockets = new RawSockets();

  @AfterEach
  void stop() throws Exception {
    sockets.close();
    if (server != null) {
      server.close();
    }
  }

  /** The head of a 1 MiB {@code PUT /v1/overrides} that waits for 100 Continue. */
  private static String expecting(String host, String authorization) {
    return "PUT /v1/overrides HTTP/1.1\r\nHost: "
        + host
        + "\r\n"
        + (authorization == null ? "" : "Authorization: " + authorization + "\r\n")
        + "Content-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: "
        + (1 << 20)
        + "\r\n\r\n";
  }

  @Test
  void expectContinue_withoutTheToken_401AtOnceAndClosed_noContinue() throws Exception {
    start(b -> b.adminToken(TOKEN.toCharArray()));
    Socket socket = sockets.open(server.adminPort());

    send(socket, expecting("127.0.0.1", null));

    assertThat(readResponse(socket))
        .as("refused on its head, before any body is asked for")
        .startsWith("HTTP/1.1 401")
        .containsIgnoringCase("connection: close")
        .containsIgnoringCase("www-authenticate: Bearer")
        .contains("Authorization: Bearer <token>");
    assertThat(readUntilClosed(socket, Duration.ofSeconds(5))).isEmpty();
    assertThat(metrics("Bearer " + TOKEN))
        .anyMatch(line -> line.contains("reason=\"unauthorized\"") && !line.endsWith(" 0.0"));
  }

  @Test
  void expectContinue_aWrongToken_401AtOnce() throws Exception {
    start(b -> b.adminToken(TOKEN.toCharArray()));
    Socket socket = sockets.open(server.adminPort());

    send(socket, expecting("127.0.0.1", "Bearer guess"));

    assertThat(readResponse(socket)).startsWith("HTTP/1.1 401");
  }

  @Test
  void expectContinue_atAHostNotAnswered_403AtOnceAndClosed() throws Exception {
    start(b -> b);
    Socket socket = sockets.open(server.adminPort());

    send(socket, expecting("rebound.example", null));

    assertThat(readResponse(socket))
        .startsWith("HTTP/1.1 403")
        .containsIgnoringCase("connection: close")
        .contains("localhost or an IP address");
    assertThat(readUntilClosed(socket, Duration.ofSeconds(5))).isEmpty();
  }

  @Test
  void expectContinue_withTheToken_continueStillSent() throws Exception {
    start(b -> b.adminToken(TOKEN.toCharArray()));
    Socket socket = sockets.open(server.adminPort());

    send(socket, expecting("127.0.0.1", "Bearer " + TOKEN));

    assertThat(readResponse(socket)).startsWith("HTTP/1.1 100 Continue");
  }

  private void start(UnaryOperator<RateLimitServer.Builder> settings) throws Exception {
    server =
        settings.apply(TestServers.onLoopback(TestServers.clientConfig(dir, "minute", 10))).start();
  }

  private java.util.stream.Stream<String> metrics(String authorization) throws Exception {
    Socket socket = sockets.open(server.adminPort());
    send(
        socket,
        "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: "
            + authorization
            + "\r\nConnection: close\r\n\r\n");
    return readUntilClosed(socket, Duration.ofSeconds(5))
        .lines()
        .filter(line -> line.startsWith("slidingwindow_server_request_errors_total{"))
        .filter(line -> line.contains("transport=\"admin\""));
  }
}
