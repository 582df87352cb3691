package io.slidingwindow.server;

import static io.slidingwindow.server.RawSockets.DECIDE;
import static io.slidingwindow.server.RawSockets.readResponse;
import static io.slidingwindow.server.RawSockets.readUntilClosed;
import static io.slidingwindow.server.RawSockets.request;
import static io.slidingwindow.server.RawSockets.send;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.slidingwindow.testkit.redis.WithoutRedisServer;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP port's bounds, over raw sockets: connections holding half a request delay nobody and are
 * closed with 408 after the read timeout; connections beyond the limit and idle ones are closed; a
 * body that is not UTF-8 is refused. Each bound is counted.
 */
@WithoutRedisServer
class HttpBoundsIT {

  private static final String HALF =
      "POST /v1/decide HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
          + "Content-Length: 100\r\n\r\n{\"dom";

  @TempDir Path dir;
  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final RawSockets sockets = new RawSockets();
  private RateLimitServer server;

  private void start(UnaryOperator<RateLimitServer.Builder> settings) throws Exception {
    Path config = TestServers.clientConfig(dir, "minute", 1000);
    server = settings.apply(TestServers.onLoopback(config)).start();
  }

  @AfterEach
  void stop() throws IOException {
    sockets.close();
    if (server != null) {
      server.close();
    }
  }

  @Test
  void decide_while64ConnectionsHoldHalfARequest_answered() throws Exception {
    start(b -> b.httpReadTimeout(Duration.ofMinutes(1)));
    for (int i = 0; i < 64; i++) {
      send(open(), HALF);
    }

    HttpResponse<String> answer = post("/v1/decide", DECIDE.getBytes(StandardCharsets.UTF_8));

    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(answer.body()).contains("\"overall\":\"OK\"");
  }

  @Test
  void halfARequest_pastTheReadTimeout_answered408AndClosed() throws Exception {
    start(b -> b.httpReadTimeout(Duration.ofMillis(300)));
    Socket socket = open();

    send(socket, HALF);

    String answer = readUntilClosed(socket, Duration.ofSeconds(10));
    assertThat(answer).startsWith("HTTP/1.1 408").contains("took too long to arrive");
    assertThat(metrics()).contains(errors("read_timeout") + " 1.0");
  }

  @Test
  void requestBegunInTheReadThatEndedThePrevious_timedFromThoseBytes_408BeforeTheIdleTimeout()
      throws Exception {
    start(b -> b.httpReadTimeout(Duration.ofMillis(1500)).httpIdleTimeout(Duration.ofMinutes(2)));
    Socket wholeLines = open();
    Socket partLine = open();

    // one write each: a whole request, then the start of the next, and nothing more
    send(wholeLines, request(DECIDE) + "POST /v1/decide HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    send(partLine, request(DECIDE) + "POST /v1/dec");

    for (Socket socket : new Socket[] {wholeLines, partLine}) {
      assertThat(readResponse(socket)).startsWith("HTTP/1.1 200");
      String rest = readUntilClosed(socket, Duration.ofSeconds(20));
      assertThat(rest).startsWith("HTTP/1.1 408").contains("took too long to arrive");
    }
    assertThat(metrics()).contains(errors("read_timeout") + " 2.0");
  }

  @Test
  void blankLinesAfterARequest_noClockStarted_closedOnlyByTheIdleTimeout() throws Exception {
    start(b -> b.httpReadTimeout(Duration.ofMillis(300)).httpIdleTimeout(Duration.ofSeconds(3)));
    Socket socket = open();

    send(socket, request(DECIDE) + "\r\n");

    assertThat(readResponse(socket)).startsWith("HTTP/1.1 200");
    assertThat(readUntilClosed(socket, Duration.ofSeconds(20))).isEmpty();
  }

  @Test
  void transferEncodingBesideContentLengthOrNotChunkedAlone_answered400AndClosed_nothingSmuggled()
      throws Exception {
    start(b -> b);
    String hidden = request(DECIDE); // a proxy going by Content-Length: 4 would see it as a request
    String chunked = Integer.toHexString(DECIDE.length()) + "\r\n" + DECIDE + "\r\n0\r\n\r\n";
    String[] heads = {
      "POST /v1/decide HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
          + "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
          + hidden,
      "POST /v1/decide HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
          + "Transfer-Encoding: gzip, chunked\r\n\r\n"
          + chunked,
      "POST /v1/decide HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
          + "Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n"
          + chunked,
      "POST /v1/decide HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
          + "Connection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n"
          + chunked,
    };

    for (String head : heads) {
      Socket socket = open();
      send(socket, head);
      String answers = readUntilClosed(socket, Duration.ofSeconds(10));
      assertThat(answers).as(head).startsWith("HTTP/1.1 400").contains("malformed HTTP request");
      assertThat(answers.split("HTTP/1.1 ", -1)).as(head).hasSize(2); // one answer, then closed
    }

    HttpResponse<String> next = post("/v1/decide", DECIDE.getBytes(StandardCharsets.UTF_8));
    assertThat(next.body()).as("nothing was decided before").contains("\"remaining\":999");
    assertThat(metrics()).contains(errors("malformed_http") + " 4.0");
  }

  @Test
  void chunkedBody_decided_andOneOverTheBound_answered413() throws Exception {
    start(b -> b);
    Socket small = open();
    send(
        small,
        "POST /v1/decide HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Transfer-Encoding: chunked\r\n\r\n"
            + Integer.toHexString(DECIDE.length())
            + "\r\n"
            + DECIDE
            + "\r\n0\r\n\r\n");
    assertThat(readResponse(small)).startsWith("HTTP/1.1 200");

    Socket large = open();
    String chunk = "x".repeat(8000);
    StringBuilder body = new StringBuilder();
    for (int i = 0; i < 140; i++) { // 1.12 MB in chunks, no length announced
      body.append(Integer.toHexString(chunk.length())).append("\r\n").append(chunk).append("\r\n");
    }
    try {
      send(
          large,
          "POST /v1/decide HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
              + "Transfer-Encoding: chunked\r\n\r\n"
              + body
              + "0\r\n\r\n");
    } catch (SocketException e) {
      // refused and closed before the whole body was written: read what was answered
    }
    assertThat(readUntilClosed(large, Duration.ofSeconds(10))).startsWith("HTTP/1.1 413");
  }

  @Test
  void headAnswer_hasNoBody_nextAnswerOnTheConnectionReadsWhole() throws Exception {
    start(b -> b);
    Socket socket = open();

    send(
        socket,
        "HEAD /healthcheck HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            + "GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");

    String answers = readUntilClosed(socket, Duration.ofSeconds(10));
    assertThat(answers).startsWith("HTTP/1.1 405").doesNotContain("{\"error\"");
    assertThat(answers).contains("\r\n\r\nHTTP/1.1 200 OK").endsWith("\r\n\r\nOK");
  }

  @Test
  void headAnswerBehindA100Continue_hasNoBody_theDecisionBeforeItKeepsItsBody() throws Exception {
    start(b -> b);
    Socket socket = open();

    send(
        socket,
        request(DECIDE).replace("\r\n\r\n", "\r\nExpect: 100-continue\r\n\r\n")
            + "HEAD /healthcheck HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            + "GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");

    String answers = readUntilClosed(socket, Duration.ofSeconds(10));
    assertThat(answers.split("HTTP/1.1 ", -1))
        .as("100, the decision with its body, 405 without one, then 200 OK: %s", answers)
        .hasSize(5);
    assertThat(answers).startsWith("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200");
    assertThat(answers).contains("\"remaining\":999");
    assertThat(answers).doesNotContain("{\"error\"").endsWith("\r\n\r\nOK");
  }

  @Test
  void connectionsBeyondTheLimit_closedAtOnce() throws Exception {
    start(b -> b.httpMaxConnections(3));
    for (int i = 0; i < 3; i++) {
      Socket socket = open();
      send(socket, request(DECIDE));
      assertThat(readResponse(socket)).startsWith("HTTP/1.1 200");
    }

    Socket extra = open();
    try {
      send(extra, request(DECIDE));
    } catch (SocketException e) {
      // closed before the request was written: as refused as can be
    }

    assertThat(readUntilClosed(extra, Duration.ofSeconds(10))).isEmpty();
    assertThat(metrics()).contains(errors("too_many_connections") + " 1.0");
  }

  @Test
  void idleConnection_closedAfterTheIdleTimeout() throws Exception {
    start(b -> b.httpIdleTimeout(Duration.ofMillis(300)));
    Socket socket = open();
    send(socket, request(DECIDE));
    assertThat(readResponse(socket)).startsWith("HTTP/1.1 200");

    assertThat(readUntilClosed(socket, Duration.ofSeconds(10))).isEmpty();
  }

  @Test
  void pipelinedAfterConnectionClose_neitherAnsweredNorCounted() throws Exception {
    start(b -> b);
    Socket socket = open();

    send(
        socket,
        request(DECIDE).replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n") + request(DECIDE));

    String answers = readUntilClosed(socket, Duration.ofSeconds(10));
    assertThat(answers.split("HTTP/1.1 ", -1)).hasSize(2); // one answer, then closed
    assertThat(answers).contains("\"remaining\":999");
    HttpResponse<String> next = post("/v1/decide", DECIDE.getBytes(StandardCharsets.UTF_8));
    assertThat(next.body()).contains("\"remaining\":998");
  }

  @Test
  void requestLineOver4KiB_answered414_headersOver8KiB_answered431_onBothPorts() throws Exception {
    start(b -> b);
    String longLine = "GET /v1/stats?" + "q".repeat(5000) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    String longHeaders =
        "GET /v1/stats HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + "p".repeat(9000) + "\r\n\r\n";

    for (int port : new int[] {server.httpPort(), server.adminPort()}) {
      Socket line = sockets.open(port);
      send(line, longLine);
      assertThat(readUntilClosed(line, Duration.ofSeconds(10)))
          .startsWith("HTTP/1.1 414")
          .contains("the request line is longer than 4096 bytes");
      Socket headers = sockets.open(port);
      send(headers, longHeaders);
      assertThat(readUntilClosed(headers, Duration.ofSeconds(10)))
          .startsWith("HTTP/1.1 431")
          .contains("the headers are longer than 8192 bytes");
    }
    Socket chunk = open(); // Netty reads a chunk's size line with the request line's bound
    send(
        chunk,
        "POST /v1/decide HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Transfer-Encoding: chunked\r\n\r\n1;"
            + "x".repeat(5000)
            + "\r\n{\r\n0\r\n\r\n");
    assertThat(readUntilClosed(chunk, Duration.ofSeconds(10)))
        .startsWith("HTTP/1.1 400")
        .contains("malformed HTTP request");
  }

  @Test
  void decide_bodyNotUtf8_answered400WithWhereAndCounted() throws Exception {
    start(b -> b);
    byte[] body = DECIDE.replace("\"c\"", "\"c?\"").getBytes(StandardCharsets.UTF_8);
    body[DECIDE.indexOf("\"c\"") + 2] = (byte) 0xff;

    HttpResponse<String> decide = post("/v1/decide", body);
    HttpResponse<String> json = post("/json", body);

    assertThat(decide.statusCode()).isEqualTo(400);
    assertThat(decide.body())
        .isEqualTo(
            "{\"error\":\"the body is not valid UTF-8 (at byte "
                + (DECIDE.indexOf("\"c\"") + 2)
                + ")\"}");
    assertThat(json.statusCode()).isEqualTo(400);
    assertThat(metrics()).contains(errors("invalid_utf8") + " 2.0");
  }

  private static String errors(String reason) {
    return "slidingwindow_server_request_errors_total{reason=\""
        + reason
        + "\",transport=\"http\"}";
  }

  private Socket open() throws IOException {
    return sockets.open(server.httpPort());
  }

  private HttpResponse<String> post(String path, byte[] body) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpPort() + path))
            .timeout(Duration.ofSeconds(5))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private String metrics() {
    return await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                client
                    .send(
                        HttpRequest.newBuilder(
                                URI.create("http://127.0.0.1:" + server.adminPort() + "/metrics"))
                            .build(),
                        HttpResponse.BodyHandlers.ofString())
                    .body(),
            body -> body.contains("request_errors_total"));
  }
}
