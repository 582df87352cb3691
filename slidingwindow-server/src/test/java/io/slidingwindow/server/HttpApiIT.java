package io.slidingwindow.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.testkit.redis.WithoutRedisServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@WithoutRedisServer
class HttpApiIT {

  private static final String CONFIG =
      """
      domain: web
      descriptors:
        - key: client
          rate_limit:
            unit: minute
            requests_per_unit: 2
      """;

  @TempDir Path dir;
  private final FakeTicker ticker = new FakeTicker();
  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final ObjectMapper json = new ObjectMapper();
  private RateLimitServer server;

  @BeforeEach
  void start() throws IOException, ConfigException {
    Path config = dir.resolve("web.yaml");
    Files.writeString(config, CONFIG);
    server =
        RateLimitServer.builder()
            .config(config)
            .host("127.0.0.1")
            .grpcPort(0)
            .httpPort(0)
            .adminPort(0)
            .ticker(ticker)
            .reloadInterval(Duration.ZERO)
            .start();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void decide_withinThenOverTheLimit_answers200Then429() throws Exception {
    String body =
        """
        {"domain": "web", "descriptors": [{"entries": [{"key": "client", "value": "c1"}]}]}
        """;

    HttpResponse<String> first = post("/v1/decide", body);
    HttpResponse<String> second =
        post("/v1/decide", body.replace("\"descriptors\"", "\"hits\": 1, \"descriptors\""));
    HttpResponse<String> third = post("/v1/decide", body);

    assertThat(first.statusCode()).isEqualTo(200);
    JsonNode answer = json.readTree(first.body());
    assertThat(answer.get("overall").asText()).isEqualTo("OK");
    JsonNode status = answer.get("statuses").get(0);
    assertThat(status.get("code").asText()).isEqualTo("OK");
    assertThat(status.get("rule").asText()).isEqualTo("client");
    assertThat(status.get("remaining").asLong()).isEqualTo(1);
    assertThat(status.get("limit").get("requests").asLong()).isEqualTo(2);
    assertThat(status.get("limit").get("window").asText()).isEqualTo("PT1M");
    assertThat(second.statusCode()).isEqualTo(200);
    assertThat(third.statusCode()).isEqualTo(429);
    JsonNode refused = json.readTree(third.body()).get("statuses").get(0);
    assertThat(refused.get("code").asText()).isEqualTo("OVER_LIMIT");
    assertThat(refused.get("durationUntilResetMillis").asLong()).isBetween(60_000L, 60_060L);
  }

  @Test
  void json_envoyRatelimitsEndpoint_answersInProtobufJson() throws Exception {
    String body =
        "{\"domain\": \"web\", \"hitsAddend\": 2,"
            + " \"descriptors\": [{\"entries\": [{\"key\": \"client\", \"value\": \"j\"}]}]}";

    HttpResponse<String> first = post("/json", body);
    HttpResponse<String> second = post("/json", body);

    assertThat(first.statusCode()).isEqualTo(200);
    JsonNode allowed = json.readTree(first.body());
    assertThat(allowed.get("overallCode").asText()).isEqualTo("OK");
    assertThat(allowed.get("statuses").get(0).get("currentLimit").get("requestsPerUnit").asInt())
        .isEqualTo(2);
    assertThat(allowed.get("statuses").get(0).get("currentLimit").get("unit").asText())
        .isEqualTo("MINUTE");
    assertThat(second.statusCode()).isEqualTo(429);
    assertThat(json.readTree(second.body()).get("overallCode").asText()).isEqualTo("OVER_LIMIT");
    assertError(post("/json", "{\"domain\": 5"), 400, "not a RateLimitRequest in JSON");
    assertError(post("/json", "{\"domain\": \"web\"}"), 400, "descriptors must not be empty");
  }

  /**
   * Hits above 2^32 - 1, of a descriptor or (on /v1/decide) of the request, are more than any limit
   * holds: that descriptor OVER_LIMIT, counting nothing, the others counted; /json's request-level
   * hitsAddend is a uint32 in Envoy's schema, and one above is no RateLimitRequest (400).
   */
  @Test
  void decide_hitsAboveUint32_overLimitForThoseDescriptorsAlone() throws Exception {
    HttpResponse<String> decide =
        post(
            "/v1/decide",
            "{\"domain\": \"web\", \"descriptors\": [{\"entries\": [{\"key\": \"client\","
                + " \"value\": \"h\"}], \"hits\": 1099511627776}, {\"entries\": [{\"key\":"
                + " \"client\", \"value\": \"n\"}]}]}");
    HttpResponse<String> request =
        post(
            "/v1/decide",
            "{\"domain\": \"web\", \"hits\": 100000000000000000000000, \"descriptors\":"
                + " [{\"entries\": [{\"key\": \"client\", \"value\": \"h\"}]}, {\"entries\":"
                + " [{\"key\": \"client\", \"value\": \"m\"}], \"hits\": 1}]}");
    HttpResponse<String> envoy =
        post(
            "/json",
            "{\"domain\": \"web\", \"descriptors\": [{\"entries\": [{\"key\": \"client\","
                + " \"value\": \"h\"}], \"hitsAddend\": \"18446744073709551615\"}, {\"entries\":"
                + " [{\"key\": \"client\", \"value\": \"j\"}]}]}");

    for (HttpResponse<String> response : java.util.List.of(decide, request)) {
      assertThat(response.statusCode()).as(response.body()).isEqualTo(429);
      JsonNode statuses = json.readTree(response.body()).get("statuses");
      assertThat(statuses.get(0).get("code").asText()).isEqualTo("OVER_LIMIT");
      assertThat(statuses.get(1).get("code").asText()).isEqualTo("OK");
      assertThat(statuses.get(1).get("remaining").asLong()).isEqualTo(1);
    }
    assertThat(envoy.statusCode()).as(envoy.body()).isEqualTo(429);
    JsonNode statuses = json.readTree(envoy.body()).get("statuses");
    assertThat(statuses.get(0).get("code").asText()).isEqualTo("OVER_LIMIT");
    assertThat(statuses.get(1).get("limitRemaining").asLong()).isEqualTo(1);
    assertError(
        post(
            "/json",
            "{\"domain\": \"web\", \"hitsAddend\": 4294967296, \"descriptors\": [{\"entries\":"
                + " [{\"key\": \"client\", \"value\": \"j\"}]}]}"),
        400,
        "not a RateLimitRequest in JSON");
    HttpResponse<String> after =
        post(
            "/v1/decide",
            "{\"domain\": \"web\", \"descriptors\": [{\"entries\": [{\"key\": \"client\","
                + " \"value\": \"h\"}]}]}");
    assertThat(json.readTree(after.body()).get("statuses").get(0).get("remaining").asLong())
        .isEqualTo(1);
  }

  @Test
  void decide_badRequests_answer4xxWithTheReason() throws Exception {
    assertError(post("/v1/decide", "{\"domain\": \"web\", "), 400, "malformed JSON");
    assertError(post("/v1/decide", "[1, 2]"), 400, "the body must be a JSON object");
    assertError(post("/v1/decide", "{\"domain\": \"web\"}"), 400, "descriptors must not be empty");
    assertError(
        post(
            "/v1/decide",
            "{\"domain\": \"web\", \"descriptors\": [{\"entries\": [{\"key\": 5}]}]}"),
        400,
        "descriptors[0].entries[0].key must be a string");
    assertError(
        post(
            "/v1/decide",
            "{\"domain\": \"web\", \"hits\": -1, \"descriptors\": [{\"entries\": [{\"key\":"
                + " \"a\"}]}]}"),
        400,
        "hits must be a whole number from 0, was -1");
    assertError(
        post(
            "/v1/decide",
            "{\"domain\": \"nope\", \"descriptors\": [{\"entries\": [{\"key\": \"a\"}]}]}"),
        404,
        "unknown domain 'nope'");
    assertError(post("/v1/decide", "x".repeat(1_100_000)), 413, "at most 1048576 bytes");
    HttpResponse<String> get =
        client.send(
            HttpRequest.newBuilder(uri("/v1/decide")).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertError(get, 405, "use POST for /v1/decide");
  }

  @Test
  void decide_rawMalformedRequest_isAnswered400AndTheServerStaysUp() throws Exception {
    String raw =
        "POST /v1/decide HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Content-Length: 9\r\nConnection: close\r\n\r\n{\"domain\"";
    String answer;
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.httpPort())) {
      socket.setSoTimeout(5000);
      OutputStream out = socket.getOutputStream();
      out.write(raw.getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      answer = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }

    assertThat(answer).startsWith("HTTP/1.1 400");
    assertThat(get("/healthcheck").body()).isEqualTo("OK");
  }

  @Test
  void metrics_afterDecisions_countsThemByDomainRuleAndOutcome() throws Exception {
    String body =
        "{\"domain\": \"web\", \"descriptors\": [{\"entries\": [{\"key\": \"client\", \"value\":"
            + " \"c\"}]}, {\"entries\": [{\"key\": \"other\", \"value\": \"o\"}]}]}";
    for (int i = 0; i < 3; i++) {
      post("/v1/decide", body);
    }
    post("/v1/decide", "not json");

    HttpResponse<String> metrics = adminGet("/metrics");

    assertThat(metrics.statusCode()).isEqualTo(200);
    assertThat(metrics.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
    assertThat(metrics.body())
        .contains(
            "slidingwindow_server_decisions_total{descriptor=\"client\",domain=\"web\",outcome=\"ok\"}"
                + " 2.0",
            "slidingwindow_server_decisions_total{descriptor=\"client\",domain=\"web\",outcome=\"over_limit\"}"
                + " 1.0",
            "slidingwindow_server_decisions_total{descriptor=\"\",domain=\"web\",outcome=\"unmatched\"}"
                + " 3.0",
            "slidingwindow_server_requests_seconds_count{transport=\"http\"} 3",
            "slidingwindow_server_requests_seconds_bucket{transport=\"http\",le=",
            "slidingwindow_server_request_errors_total{reason=\"malformed_json\",transport=\"http\"}"
                + " 1.0");
  }

  @Test
  void stats_reportsTheLoadedConfiguration() throws Exception {
    HttpResponse<String> stats = adminGet("/v1/stats");

    JsonNode answer = json.readTree(stats.body());
    assertThat(answer.get("domains").get(0).asText()).isEqualTo("web");
    assertThat(answer.get("rules").asInt()).isEqualTo(1);
    assertThat(answer.get("lastReloadError").isNull()).isTrue();
  }

  @Test
  void reload_onASchedule_picksUpAChangedFile() throws Exception {
    Path config = dir.resolve("polled.yaml");
    Files.writeString(config, CONFIG);
    try (RateLimitServer polled =
        RateLimitServer.builder()
            .config(config)
            .host("127.0.0.1")
            .grpcPort(0)
            .httpPort(0)
            .adminPort(0)
            .ticker(ticker)
            .reloadInterval(Duration.ofMillis(20))
            .start()) {
      Files.writeString(config, CONFIG.replace("domain: web", "domain: shop"));

      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  client
                      .send(
                          HttpRequest.newBuilder(
                                  URI.create(
                                      "http://127.0.0.1:" + polled.adminPort() + "/v1/stats"))
                              .build(),
                          HttpResponse.BodyHandlers.ofString())
                      .body()
                      .contains("\"shop\""));
    }
  }

  private void assertError(HttpResponse<String> response, int code, String message)
      throws IOException {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(code);
    assertThat(json.readTree(response.body()).get("error").asText()).contains(message);
  }

  private HttpResponse<String> post(String path, String body) throws Exception {
    return client.send(
        HttpRequest.newBuilder(uri(path))
            .timeout(Duration.ofSeconds(10))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> get(String path) throws Exception {
    return client.send(
        HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(10)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> adminGet(String path) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.adminPort() + path))
            .timeout(Duration.ofSeconds(10))
            .GET()
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + server.httpPort() + path);
  }
}
