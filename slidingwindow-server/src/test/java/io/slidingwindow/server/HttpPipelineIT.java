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
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Requests the HTTP codec answers itself ({@code Expect}) and requests pipelined behind a slow
 * decision, over raw sockets: every request is answered once, and counted once or not at all.
 */
class HttpPipelineIT {

  private static final String DECIDE =
      "{\"domain\": \"api\", \"descriptors\": [{\"entries\": [{\"key\": \"client\","
          + " \"value\": \"c\"}]}]}";

  @TempDir Path dir;
  private final List<Socket> sockets = new ArrayList<>();
  private RedisServerProcess redis;
  private RateLimitServer server;

  private void start(UnaryOperator<RateLimitServer.Builder> settings) throws Exception {
    Path config = dir.resolve("api.yaml");
    Files.writeString(
        config,
        """
        domain: api
        descriptors:
          - key: client
            rate_limit: {unit: minute, requests_per_unit: 1000}
        """);
    server = settings.apply(TestServers.onLoopback(config)).start();
  }

  /** A service on a Redis of its own, whose commands wait as long as they must. */
  private void startOnRedis(UnaryOperator<RateLimitServer.Builder> settings) throws Exception {
    redis = RedisServerProcess.start();
    start(b -> settings.apply(b.redis(redis.uri()).redisCommandTimeout(Duration.ofSeconds(20))));
    Socket warm = open();
    send(warm, request(DECIDE)); // connects and loads the script
    assertThat(readResponse(warm)).startsWith("HTTP/1.1 200");
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
  void expect100Continue_bodyTooLarge_answered413AndClosedAtOnce() throws Exception {
    start(b -> b.httpReadTimeout(Duration.ofMinutes(1)).httpIdleTimeout(Duration.ofMinutes(1)));
    Socket socket = open();

    send(
        socket,
        "POST /v1/decide HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Expect: 100-continue\r\nContent-Length: 100000000\r\n\r\n");

    String answers = readUntilClosed(socket);
    assertThat(answers).startsWith("HTTP/1.1 413");
    assertThat(answers.split("HTTP/1.1 ", -1)).hasSize(2);
    assertThat(decideOnce()).contains("\"remaining\":999"); // nothing was counted
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

    String answers = readUntilClosed(socket);
    assertThat(answers).startsWith("HTTP/1.1 417");
    assertThat(answers.split("HTTP/1.1 ", -1)).hasSize(2);
    assertThat(decideOnce()).contains("\"remaining\":999");
  }

  @Test
  void bodyTooLarge_requestPipelinedBehindIt_neitherAnsweredNorCounted() throws Exception {
    start(b -> b);
    Socket socket = open();
    String big = "x".repeat((1 << 20) + 1);

    send(socket, request(big) + request(DECIDE));

    String answers = readUntilClosed(socket);
    assertThat(answers).startsWith("HTTP/1.1 413");
    assertThat(answers.split("HTTP/1.1 ", -1)).hasSize(2); // one answer, then closed
    assertThat(decideOnce()).contains("\"remaining\":999");
  }

  @Test
  void slowDecision_pipelinedRequestBehindIt_bothAnsweredPastTheReadTimeout() throws Exception {
    startOnRedis(b -> b.httpReadTimeout(Duration.ofMillis(200)));
    Socket socket = open();
    // Pad the second request past the first read's buffer, so that it arrives in two reads while
    // the first is being decided.
    String padded = "{" + " ".repeat(6000) + DECIDE.substring(1);
    redis.cli("CLIENT", "PAUSE", "1500", "ALL");

    send(socket, request(DECIDE) + request(padded));

    assertThat(readResponse(socket)).startsWith("HTTP/1.1 200").contains("\"remaining\":998");
    assertThat(readResponse(socket)).startsWith("HTTP/1.1 200").contains("\"remaining\":997");
  }

  @Test
  void slowDecision_longerThanTheIdleTimeout_answered() throws Exception {
    startOnRedis(b -> b.httpIdleTimeout(Duration.ofMillis(200)));
    Socket socket = open();
    redis.cli("CLIENT", "PAUSE", "1500", "ALL");

    send(socket, request(DECIDE));

    assertThat(readResponse(socket)).startsWith("HTTP/1.1 200").contains("\"remaining\":998");
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
