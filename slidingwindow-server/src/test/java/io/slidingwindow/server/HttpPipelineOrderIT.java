package io.slidingwindow.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A request the port refuses itself (413, 417) pipelined behind one still being decided (Redis
 * paused), over raw sockets: the refusal waits for the answer in flight and follows it, so a
 * pipelining client reads every answer as its own request's; the request decided is answered and
 * counted once, and requests behind the refusal are neither answered nor counted.
 */
class HttpPipelineOrderIT {

  private static final String DECIDE =
      "{\"domain\": \"api\", \"descriptors\": [{\"entries\": [{\"key\": \"client\","
          + " \"value\": \"c\"}]}]}";

  @TempDir Path dir;
  private final List<Socket> sockets = new ArrayList<>();
  private RedisServerProcess redis;
  private RateLimitServer server;

  /** A service on a Redis of its own, whose commands wait as long as they must, warmed up. */
  @BeforeEach
  void start() throws Exception {
    Path config = dir.resolve("api.yaml");
    Files.writeString(
        config,
        """
        domain: api
        descriptors:
          - key: client
            rate_limit: {unit: minute, requests_per_unit: 1000}
        """);
    redis = RedisServerProcess.start();
    server =
        TestServers.onLoopback(config)
            .redis(redis.uri())
            .redisCommandTimeout(Duration.ofSeconds(20))
            .start();
    assertThat(decideOnce()).contains("\"remaining\":999"); // connects and loads the script
  }

  @AfterEach
  void stop() throws IOException {
    for (Socket socket : sockets) {
      socket.close();
    }
    if (server != null) {
      server.close();
    }
    if (redis != null) {
      redis.close();
    }
  }

  @Test
  void slowDecision_bodyTooLargePipelinedBehindIt_answeredFirstThen413() throws Exception {
    Socket socket = open();
    redis.cli("CLIENT", "PAUSE", "1500", "ALL");

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
    redis.cli("CLIENT", "PAUSE", "1500", "ALL");

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
    redis.cli("CLIENT", "PAUSE", "1500", "ALL");

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
    redis.cli("CLIENT", "PAUSE", "1500", "ALL");

    send(
        socket,
        request(DECIDE).replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n")
            + "POST /v1/decide HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Expect: 100-continue\r\nContent-Length: 100000000\r\n\r\n");

    assertThat(readResponse(socket)).startsWith("HTTP/1.1 200").contains("\"remaining\":998");
    assertThat(readUntilClosed(socket)).isEmpty(); // no answer after one that closes
  }

  private String decideOnce() throws IOException {
    Socket socket = open();
    send(socket, request(DECIDE));
    return readResponse(socket);
  }

  private static String request(String body) {
    return "POST /v1/decide HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + "Content-Length: "
        + body.length()
        + "\r\n\r\n"
        + body;
  }

  private Socket open() throws IOException {
    Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.httpPort());
    socket.setSoTimeout(10_000);
    sockets.add(socket);
    return socket;
  }

  private static void send(Socket socket, String text) throws IOException {
    socket.getOutputStream().write(text.getBytes(StandardCharsets.US_ASCII));
    socket.getOutputStream().flush();
  }

  /** Sends, ignoring a connection the server closed before reading everything. */
  private static void sendQuietly(Socket socket, String text) {
    try {
      send(socket, text);
    } catch (IOException e) {
      // closed by the server: what was left unsent was never to be read
    }
  }

  /** One response: its head, and a body of its Content-Length; empty if the connection closed. */
  private static String readResponse(Socket socket) throws IOException {
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

  /** Everything until the server closes the connection, within 5 seconds. */
  private static String readUntilClosed(Socket socket) throws IOException {
    socket.setSoTimeout(5_000);
    try {
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    } catch (SocketTimeoutException e) {
      throw new AssertionError("the server did not close the connection within 5 s", e);
    } catch (SocketException e) {
      return ""; // reset: closed with the request unread
    }
  }
}
