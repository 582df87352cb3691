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
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code Expect: 100-continue} on a request pipelined behind one still being decided (Redis
 * paused), over raw sockets: its {@code 100 Continue} comes in its turn, after the earlier
 * request's answer (written before, a client reads it as an interim answer to that request), and a
 * decision slower than the read timeout does not cost the request behind it a 408.
 */
class HttpContinueOrderIT {

  /** The head of a decision on {@link RawSockets#DECIDE} that waits for {@code 100 Continue}. */
  private static final String EXPECTING =
      "POST /v1/decide HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
          + "Expect: 100-continue\r\nContent-Length: "
          + DECIDE.length()
          + "\r\n\r\n";

  @TempDir Path dir;
  private final ServiceOnSockets service = new ServiceOnSockets();

  @AfterEach
  void stop() throws IOException {
    service.close();
  }

  @Test
  void slowDecision_expect100ContinueBehindIt_continueFollowsTheEarlierAnswer() throws Exception {
    start(Duration.ofMinutes(1));
    Socket socket = service.open();
    service.redis().cli("CLIENT", "PAUSE", "1500", "ALL");

    send(socket, request(DECIDE) + EXPECTING);

    assertThat(readResponse(socket))
        .as("the slow request's answer comes before the 100 Continue of the one behind it")
        .startsWith("HTTP/1.1 200")
        .contains("\"remaining\":998");
    assertThat(readResponse(socket)).startsWith("HTTP/1.1 100 Continue");
    send(socket, DECIDE);
    assertThat(readResponse(socket)).startsWith("HTTP/1.1 200").contains("\"remaining\":997");
  }

  /**
   * The read timeout of the slow-decision cases, and the Redis pause that outlasts it: long enough
   * that the client's own steps after the 100 Continue (read two answers, send a body) never take
   * it on a loaded machine, as 300 ms could.
   */
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(2);

  private static final String PAUSE_MS = "4000";

  @Test
  void slowDecisionPastTheReadTimeout_expect100ContinueBehindIt_bodyStillRead() throws Exception {
    start(READ_TIMEOUT);
    Socket socket = service.open();
    service.redis().cli("CLIENT", "PAUSE", PAUSE_MS, "ALL");

    send(socket, request(DECIDE) + EXPECTING);

    assertThat(readResponse(socket)).startsWith("HTTP/1.1 200").contains("\"remaining\":998");
    assertThat(readResponse(socket))
        .as("no 408 for a body its client could not send before the 100 Continue")
        .startsWith("HTTP/1.1 100 Continue");
    send(socket, DECIDE);
    assertThat(readResponse(socket)).startsWith("HTTP/1.1 200").contains("\"remaining\":997");
  }

  @Test
  void overTls_slowDecisionPastTheReadTimeout_expect100ContinueInItsOwnRecord_noTimeoutWhileHeld()
      throws Exception {
    TestCertificates certificates = TestCertificates.write(dir);
    service.startOnRedisUntried(
        dir,
        b ->
            b.tls(certificates.serverCert(), certificates.serverKey())
                .httpReadTimeout(READ_TIMEOUT));
    Socket plain = service.open();
    SSLSocket socket =
        (SSLSocket)
            certificates
                .clientContext(false)
                .getSocketFactory()
                .createSocket(plain, "127.0.0.1", plain.getPort(), true);
    socket.startHandshake();
    service.redis().cli("CLIENT", "PAUSE", PAUSE_MS, "ALL");

    // Two writes at once: two TLS records, which the server decrypts into two reads even when one
    // socket read brings both, the second once the first request is whole.
    send(socket, request(DECIDE));
    send(socket, EXPECTING);

    assertHeldContinueThenAnswered(socket, 999); // no decision before on this service
  }

  /**
   * The slow first decision's answer, then (not a 408) the 100 Continue held behind it, then the
   * second decision's answer once its body is sent; {@code remaining} is what the first leaves.
   */
  private static void assertHeldContinueThenAnswered(Socket socket, int remaining)
      throws IOException {
    assertThat(readResponse(socket))
        .startsWith("HTTP/1.1 200")
        .contains("\"remaining\":" + remaining + ",");
    assertThat(readResponse(socket))
        .as("no 408 while the 100 Continue was held behind the slow decision")
        .startsWith("HTTP/1.1 100 Continue");
    send(socket, DECIDE);
    assertThat(readResponse(socket))
        .startsWith("HTTP/1.1 200")
        .contains("\"remaining\":" + (remaining - 1) + ",");
  }

  @Test
  void expect100Continue_nothingBefore_continueAtOnce_thenInTurnBehindADecision() throws Exception {
    start(Duration.ofMinutes(1));
    Socket socket = service.open();

    send(socket, EXPECTING);

    assertThat(readResponse(socket)).startsWith("HTTP/1.1 100 Continue");
    send(socket, DECIDE + EXPECTING);
    assertThat(readResponse(socket)).startsWith("HTTP/1.1 200").contains("\"remaining\":998");
    assertThat(readResponse(socket)).startsWith("HTTP/1.1 100 Continue");
    send(socket, DECIDE);
    assertThat(readResponse(socket)).startsWith("HTTP/1.1 200").contains("\"remaining\":997");
  }

  private void start(Duration readTimeout) throws Exception {
    assertThat(service.startOnRedis(dir, b -> b.httpReadTimeout(readTimeout)))
        .contains("\"remaining\":999");
  }
}
