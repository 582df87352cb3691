package io.slidingwindow.server;

import static io.slidingwindow.server.RawSockets.DECIDE;
import static io.slidingwindow.server.RawSockets.readResponse;
import static io.slidingwindow.server.RawSockets.readUntilClosed;
import static io.slidingwindow.server.RawSockets.request;
import static io.slidingwindow.server.RawSockets.send;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Requests the HTTP codec answers itself ({@code Expect}) and requests pipelined behind a slow
 * decision, over raw sockets: every request is answered once, and counted once or not at all.
 */
class HttpPipelineIT {

  @TempDir Path dir;
  private final ServiceOnSockets service = new ServiceOnSockets();

  private void start(UnaryOperator<RateLimitServer.Builder> settings) throws Exception {
    service.start(dir, settings);
  }

  /** A service on a Redis of its own, whose commands wait as long as they must. */
  private void startOnRedis(UnaryOperator<RateLimitServer.Builder> settings) throws Exception {
    assertThat(service.startOnRedis(dir, settings)).startsWith("HTTP/1.1 200");
  }

  @AfterEach
  void stop() throws IOException {
    service.close();
  }

  @Test
  void expect100Continue_bodyTooLarge_answered413AndClosedAtOnce() throws Exception {
    start(b -> b.httpReadTimeout(Duration.ofMinutes(1)).httpIdleTimeout(Duration.ofMinutes(1)));
    Socket socket = open();

    send(
        socket,
        "POST /v1/decide HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Expect: 100-continue\r\nContent-Length: 100000000\r\n\r\n");

    assertAnsweredOnceThenClosed_nothingCounted(socket, "413");
  }

  @Test
  void unsupportedExpectation_answered417AndClosedAtOnce_neverDecided() throws Exception {
    start(b -> b.httpReadTimeout(Duration.ofMinutes(1)).httpIdleTimeout(Duration.ofMinutes(1)));
    Socket socket = open();

    // The body comes along at once, and another request behind it: neither may be decided.
    send(
        socket,
        request(DECIDE).replace("\r\n\r\n", "\r\nExpect: something-else\r\n\r\n")
            + request(DECIDE));

    assertAnsweredOnceThenClosed_nothingCounted(socket, "417");
  }

  @Test
  void bodyTooLarge_requestPipelinedBehindIt_neitherAnsweredNorCounted() throws Exception {
    start(b -> b);
    Socket socket = open();
    String big = "x".repeat((1 << 20) + 1);

    send(socket, request(big) + request(DECIDE));

    assertAnsweredOnceThenClosed_nothingCounted(socket, "413");
  }

  @Test
  void slowDecision_pipelinedRequestBehindIt_bothAnsweredPastTheReadTimeout() throws Exception {
    startOnRedis(b -> b.httpReadTimeout(Duration.ofMillis(200)));
    Socket socket = open();
    // Pad the second request past the first read's buffer, so that it arrives in two reads while
    // the first is being decided.
    String padded = "{" + " ".repeat(6000) + DECIDE.substring(1);
    service.redis().cli("CLIENT", "PAUSE", "1500", "ALL");

    send(socket, request(DECIDE) + request(padded));

    assertThat(readResponse(socket)).startsWith("HTTP/1.1 200").contains("\"remaining\":998");
    assertThat(readResponse(socket)).startsWith("HTTP/1.1 200").contains("\"remaining\":997");
  }

  @Test
  void slowDecision_longerThanTheIdleTimeout_answered() throws Exception {
    startOnRedis(b -> b.httpIdleTimeout(Duration.ofMillis(200)));
    Socket socket = open();
    service.redis().cli("CLIENT", "PAUSE", "1500", "ALL");

    send(socket, request(DECIDE));

    assertThat(readResponse(socket)).startsWith("HTTP/1.1 200").contains("\"remaining\":998");
  }

  /**
   * The one answer on {@code socket} has {@code status}, the connection is closed after it, and the
   * client's count is untouched.
   */
  private void assertAnsweredOnceThenClosed_nothingCounted(Socket socket, String status)
      throws IOException {
    String answers = readUntilClosed(socket, Duration.ofSeconds(5));
    assertThat(answers).startsWith("HTTP/1.1 " + status);
    assertThat(answers.split("HTTP/1.1 ", -1)).as("one answer, then closed").hasSize(2);
    assertThat(decideOnce()).as("nothing counted").contains("\"remaining\":999");
  }

  private String decideOnce() throws IOException {
    return service.decideOnce();
  }

  private Socket open() throws IOException {
    return service.open();
  }
}
