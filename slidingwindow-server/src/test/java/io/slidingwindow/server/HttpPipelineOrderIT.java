package io.slidingwindow.server;

import static io.slidingwindow.server.RawSockets.DECIDE;
import static io.slidingwindow.server.RawSockets.readResponse;
import static io.slidingwindow.server.RawSockets.request;
import static io.slidingwindow.server.RawSockets.send;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A request the port refuses itself (413, 417) pipelined behind one still being decided (Redis
 * paused), over raw sockets: the refusal waits for the answers of the requests before it, so a
 * pipelining client reads every answer as its own request's; each request decided is answered and
 * counted once, and requests behind the refusal are neither answered nor counted.
 */
class HttpPipelineOrderIT {

  @TempDir Path dir;
  private final ServiceOnSockets service = new ServiceOnSockets();

  /** A service on a Redis of its own, whose commands wait as long as they must, warmed up. */
  @BeforeEach
  void start() throws Exception {
    assertThat(service.startOnRedis(dir, b -> b)).contains("\"remaining\":999");
  }

  @AfterEach
  void stop() throws IOException {
    service.close();
  }

  @Test
  void slowDecision_bodyTooLargePipelinedBehindIt_answeredFirstThen413() throws Exception {
    Socket socket = open();
    service.redis().cli("CLIENT", "PAUSE", "1500", "ALL");

    // The body is sent by another thread: the server reads none of it until the decision is made.
    CompletableFuture<Void> sent =
        CompletableFuture.runAsync(
            () ->
                sendQuietly(
                    socket,
                    request(DECIDE) + request("x".repeat((1 << 20) + 1)) + request(DECIDE)));

    assertThat(readResponse(socket)).startsWith("HTTP/1.1 200").contains("\"remaining\":998");
    assertThat(readResponse(socket))
        .startsWith("HTTP/1.1 413")
        .containsIgnoringCase("Connection: close")
        .contains("at most 1048576 bytes");
    assertThat(readUntilClosed(socket)).isEmpty();
    sent.get(10, TimeUnit.SECONDS);
    assertThat(decideOnce()).contains("\"remaining\":997"); // the third was never decided
  }

  @Test
  void slowDecision_expect100ContinueTooLargeBehindIt_answeredFirstThen413() throws Exception {
    Socket socket = open();
    service.redis().cli("CLIENT", "PAUSE", "1500", "ALL");

    send(
        socket,
        request(DECIDE)
            + "POST /v1/decide HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Expect: 100-continue\r\nContent-Length: 100000000\r\n\r\n");

    assertThat(readResponse(socket)).startsWith("HTTP/1.1 200").contains("\"remaining\":998");
    assertThat(readResponse(socket)).startsWith("HTTP/1.1 413");
    assertThat(readUntilClosed(socket)).isEmpty();
    assertThat(decideOnce()).contains("\"remaining\":997");
  }

  @Test
  void slowDecision_unsupportedExpectationBehindIt_answeredFirstThen417() throws Exception {
    Socket socket = open();
    service.redis().cli("CLIENT", "PAUSE", "1500", "ALL");

    send(
        socket,
        request(DECIDE)
            + request(DECIDE).replace("\r\n\r\n", "\r\nExpect: something-else\r\n\r\n")
            + request(DECIDE));

    assertThat(readResponse(socket)).startsWith("HTTP/1.1 200").contains("\"remaining\":998");
    assertThat(readResponse(socket)).startsWith("HTTP/1.1 417").contains("100-continue");
    assertThat(readUntilClosed(socket)).isEmpty();
    assertThat(decideOnce()).contains("\"remaining\":997"); // neither request behind was decided
  }

  @Test
  void slowDecision_closingTheConnection_bodyTooLargeBehindIt_onlyTheDecisionAnswered()
      throws Exception {
    Socket socket = open();
    service.redis().cli("CLIENT", "PAUSE", "1500", "ALL");

    send(
        socket,
        request(DECIDE).replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n")
            + "POST /v1/decide HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Expect: 100-continue\r\nContent-Length: 100000000\r\n\r\n");

    assertThat(readResponse(socket)).startsWith("HTTP/1.1 200").contains("\"remaining\":998");
    assertThat(readUntilClosed(socket)).isEmpty(); // no answer after one that closes
  }

  @Test
  void slowDecision_closingTheConnection_refusalsBehindIt_countedThoughNeverAnswered()
      throws Exception {
    Socket socket = open();
    service.redis().cli("CLIENT", "PAUSE", "1500", "ALL");

    send(
        socket,
        request(DECIDE).replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n")
            + "POST /v1/decide HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Expect: 100-continue\r\nContent-Length: 100000000\r\n\r\n"
            + request("").replace("\r\n\r\n", "\r\nExpect: something-else\r\n\r\n")
            + "NOT HTTP AT ALL\r\n\r\n");

    assertThat(readResponse(socket)).startsWith("HTTP/1.1 200").contains("\"remaining\":998");
    assertThat(readUntilClosed(socket)).isEmpty();
    assertThat(service.metrics())
        .as("what the port refused to read is counted, though its answer was never sent")
        .contains(errors("too_large") + " 1.0")
        .contains(errors("malformed_http") + " 2.0");
  }

  private static String errors(String reason) {
    return "slidingwindow_server_request_errors_total{reason=\""
        + reason
        + "\",transport=\"http\"}";
  }

  @Test
  void slowDecision_wholeRequestThenUnsupportedExpectationBehindIt_answeredInOrder()
      throws Exception {
    Socket socket = open();
    service.redis().cli("CLIENT", "PAUSE", "1500", "ALL");

    send(
        socket,
        request(DECIDE)
            + request(DECIDE)
            + request(DECIDE).replace("\r\n\r\n", "\r\nExpect: something-else\r\n\r\n")
            + request(DECIDE));

    assertThat(readResponse(socket)).startsWith("HTTP/1.1 200").contains("\"remaining\":998");
    assertThat(readResponse(socket))
        .as("the whole request waiting behind the slow one is answered before the refusal")
        .startsWith("HTTP/1.1 200")
        .contains("\"remaining\":997");
    assertThat(readResponse(socket)).startsWith("HTTP/1.1 417").contains("100-continue");
    assertThat(readUntilClosed(socket)).isEmpty();
    assertThat(decideOnce()).contains("\"remaining\":996"); // the last was never decided
  }

  private String decideOnce() throws IOException {
    return service.decideOnce();
  }

  private Socket open() throws IOException {
    return service.open();
  }

  /** Sends, ignoring a connection the server closed before reading everything. */
  private static void sendQuietly(Socket socket, String text) {
    try {
      send(socket, text);
    } catch (IOException e) {
      // closed by the server: what was left unsent was never to be read
    }
  }

  private static String readUntilClosed(Socket socket) throws IOException {
    return RawSockets.readUntilClosed(socket, Duration.ofSeconds(5));
  }
}
