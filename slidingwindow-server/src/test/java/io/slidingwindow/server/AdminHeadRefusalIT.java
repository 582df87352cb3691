package io.slidingwindow.server;

import static io.slidingwindow.server.RawSockets.readResponse;
import static io.slidingwindow.server.RawSockets.readUntilClosed;
import static io.slidingwindow.server.RawSockets.send;
import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.LogCapture;
import io.slidingwindow.testkit.redis.WithoutRedisServer;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.UnaryOperator;
import java.util.logging.Level;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Requests without {@code Expect: 100-continue} on the admin port, over raw sockets: one without
 * the token, or at a {@code Host} the port does not answer, is refused on its head (401, 403,
 * {@code Connection: close}) while its body is still coming, rather than gathered whole (up to 1
 * MiB) before the token is looked at. The refusal still keeps its turn behind earlier requests.
 */
@WithoutRedisServer
class AdminHeadRefusalIT {

  private static final String TOKEN = "s3cret-admin-token";

  /** Far below the port's read timeout (10 s), after which it would answer 408 anyway. */
  private static final Duration ANSWERED_WITHIN = Duration.ofSeconds(3);

  @TempDir Path dir;
  private RateLimitServer server;
  private final RawSockets sockets = new RawSockets();
  private final LogCapture audit = LogCapture.of("io.slidingwindow.server.admin.audit");

  @AfterEach
  void stop() throws Exception {
    audit.close();
    sockets.close();
    if (server != null) {
      server.close();
    }
  }

  /** The head of a 1 MiB {@code PUT /v1/overrides}, and the first 64 KiB of its body. */
  private static String partialMebibyte(String host, String authorization) {
    return "PUT /v1/overrides HTTP/1.1\r\nHost: "
        + host
        + "\r\n"
        + (authorization == null ? "" : "Authorization: " + authorization + "\r\n")
        + "Content-Type: application/json\r\nContent-Length: "
        + (1 << 20)
        + "\r\n\r\n"
        + " ".repeat(64 << 10);
  }

  @Test
  void aWrongToken_bodyStillComing_401AtOnceAndClosed() throws Exception {
    start(b -> b.adminToken(TOKEN.toCharArray()));
    Socket socket = sockets.open(server.adminPort());

    send(socket, partialMebibyte("127.0.0.1", "Bearer guess"));

    assertThat(answer(socket))
        .startsWith("HTTP/1.1 401")
        .containsIgnoringCase("connection: close")
        .containsIgnoringCase("www-authenticate: Bearer")
        .contains("Authorization: Bearer <token>");
    assertThat(readUntilClosed(socket, Duration.ofSeconds(5))).isEmpty();
    assertThat(unauthorizedCount()).isEqualTo("1.0");
    assertThat(audit.messages(Level.INFO))
        .singleElement()
        .asString()
        .contains("unauthorized", "401", "client=127.0.0.1");
  }

  @Test
  void noToken_chunkedBodyNeverEnding_401AtOnce() throws Exception {
    start(b -> b.adminToken(TOKEN.toCharArray()));
    Socket socket = sockets.open(server.adminPort());

    send(
        socket,
        "DELETE /v1/quota HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Transfer-Encoding: chunked\r\n\r\n10000\r\n"
            + " ".repeat(1 << 15));

    assertThat(answer(socket)).startsWith("HTTP/1.1 401").containsIgnoringCase("connection: close");
  }

  @Test
  void atAHostNotAnswered_bodyStillComing_403AtOnceAndClosed() throws Exception {
    start(b -> b);
    Socket socket = sockets.open(server.adminPort());

    send(socket, partialMebibyte("rebound.example", null));

    assertThat(answer(socket))
        .startsWith("HTTP/1.1 403")
        .containsIgnoringCase("connection: close")
        .contains("localhost or an IP address");
    assertThat(readUntilClosed(socket, Duration.ofSeconds(5))).isEmpty();
  }

  @Test
  void pipelinedBehindAnAuthorizedRequest_401InItsTurn() throws Exception {
    start(b -> b.adminToken(TOKEN.toCharArray()));
    Socket socket = sockets.open(server.adminPort());

    send(
        socket,
        "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
            + TOKEN
            + "\r\n\r\n"
            + partialMebibyte("127.0.0.1", null));

    assertThat(answer(socket)).startsWith("HTTP/1.1 200").contains("slidingwindow_server_");
    assertThat(answer(socket)).startsWith("HTTP/1.1 401").containsIgnoringCase("connection: close");
    assertThat(readUntilClosed(socket, Duration.ofSeconds(5))).isEmpty();
  }

  @Test
  void aWrongToken_noBody_401AndClosed() throws Exception {
    start(b -> b.adminToken(TOKEN.toCharArray()));
    Socket socket = sockets.open(server.adminPort());

    send(
        socket, "GET /v1/overrides HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer x\r\n\r\n");

    assertThat(answer(socket)).startsWith("HTTP/1.1 401").containsIgnoringCase("connection: close");
    assertThat(readUntilClosed(socket, Duration.ofSeconds(5))).isEmpty();
  }

  /** The next answer on {@code socket}, which must begin within {@link #ANSWERED_WITHIN}. */
  private static String answer(Socket socket) throws IOException {
    int before = socket.getSoTimeout();
    socket.setSoTimeout(Math.toIntExact(ANSWERED_WITHIN.toMillis()));
    try {
      return readResponse(socket);
    } catch (SocketTimeoutException e) {
      throw new AssertionError(
          "no answer within " + ANSWERED_WITHIN + " while the body was still coming", e);
    } finally {
      socket.setSoTimeout(before);
    }
  }

  private void start(UnaryOperator<RateLimitServer.Builder> settings) throws Exception {
    server =
        settings.apply(TestServers.onLoopback(TestServers.clientConfig(dir, "minute", 10))).start();
  }

  /** The admin port's count of 401s, read with the token. */
  private String unauthorizedCount() throws Exception {
    Socket socket = sockets.open(server.adminPort());
    send(
        socket,
        "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
            + TOKEN
            + "\r\nConnection: close\r\n\r\n");
    Stream<String> lines =
        readUntilClosed(socket, Duration.ofSeconds(5))
            .lines()
            .filter(line -> line.startsWith("slidingwindow_server_request_errors_total{"))
            .filter(line -> line.contains("transport=\"admin\""))
            .filter(line -> line.contains("reason=\"unauthorized\""));
    return lines.map(line -> line.substring(line.lastIndexOf(' ') + 1)).findFirst().orElse("none");
  }
}
