package io.slidingwindow.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.slidingwindow.dashboard.DecisionRecorder;
import io.slidingwindow.server.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitRequest;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.testkit.redis.WithoutRedisServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code GET /v1/dashboard} and the page's files, over loopback, with traffic over gRPC. */
@WithoutRedisServer
class DashboardApiIT {

  private static final String CONFIG =
      """
      domain: api
      descriptors:
        - key: client
          rate_limit:
            unit: minute
            requests_per_unit: 2
        - key: user
          rate_limits:
            - requests: 5
              window: 10s
            - requests: 12
              window: 90s
        - key: blocked
          rate_limit:
            unit: second
            requests_per_unit: 0
        - key: free
          rate_limit:
            unlimited: true
        - key: trial
          shadow_mode: true
          rate_limit:
            unit: second
            requests_per_unit: 1
      """;

  @TempDir Path dir;
  private final FakeTicker ticker = new FakeTicker();
  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final ObjectMapper json = new ObjectMapper();
  private RateLimitServer server;
  private ManagedChannel channel;
  private RateLimitServiceGrpc.RateLimitServiceBlockingStub stub;

  @BeforeEach
  void start() throws IOException, ConfigException {
    Path config = dir.resolve("api.yaml");
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
    channel = NettyChannelBuilder.forAddress("127.0.0.1", server.grpcPort()).usePlaintext().build();
    stub = RateLimitServiceGrpc.newBlockingStub(channel);
  }

  @AfterEach
  void stop() throws InterruptedException {
    if (channel != null) {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
    if (server != null) {
      server.close();
    }
  }

  private Code decide(String key, String value) {
    return stub.withDeadlineAfter(10, TimeUnit.SECONDS)
        .shouldRateLimit(
            RateLimitRequest.newBuilder()
                .setDomain("api")
                .addDescriptors(
                    RateLimitDescriptor.newBuilder()
                        .addEntries(
                            RateLimitDescriptor.Entry.newBuilder().setKey(key).setValue(value)))
                .build())
        .getOverallCode();
  }

  private HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return client.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.adminPort() + path))
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static long sum(JsonNode values) {
    return StreamSupport.stream(values.spliterator(), false).mapToLong(JsonNode::asLong).sum();
  }

  private static JsonNode find(JsonNode array, String field, String value) {
    for (JsonNode node : array) {
      if (node.path(field).asText().equals(value)) {
        return node;
      }
    }
    throw new AssertionError("no " + field + "=" + value + " in " + array);
  }

  @Test
  void dashboard_afterGrpcTraffic_answersSeriesTopKeysConfigAndBackend() throws Exception {
    for (int i = 0; i < 5; i++) {
      decide("client", "c1");
    }
    assertThat(decide("client", "c2")).isEqualTo(Code.OK);
    assertThat(decide("blocked", "b")).isEqualTo(Code.OVER_LIMIT);
    assertThat(decide("trial", "t")).isEqualTo(Code.OK);
    assertThat(decide("trial", "t")).isEqualTo(Code.OK); // a shadow refusal, answered OK

    HttpResponse<String> response = get("/v1/dashboard");
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
    assertThat(response.headers().firstValue("Cache-Control")).hasValue("no-store");
    JsonNode body = json.readTree(response.body());

    JsonNode seconds = body.get("seconds");
    assertThat(seconds).hasSize(300);
    long now = System.currentTimeMillis() / 1000;
    assertThat(seconds.get(299).asLong()).isBetween(now - 5, now + 1);
    assertThat(seconds.get(299).asLong() - seconds.get(0).asLong()).isEqualTo(299);

    JsonNode domain = find(body.get("domains"), "domain", "api");
    assertThat(domain.get("decisions")).hasSize(300);
    assertThat(sum(domain.get("decisions"))).isEqualTo(9);
    assertThat(sum(domain.get("refusals"))).isEqualTo(4);

    JsonNode clientRule = find(body.get("rules"), "rule", "client");
    assertThat(clientRule.get("domain").asText()).isEqualTo("api");
    assertThat(sum(clientRule.get("decisions"))).isEqualTo(6);
    assertThat(sum(clientRule.get("refusals"))).isEqualTo(3);
    assertThat(sum(find(body.get("rules"), "rule", "trial").get("refusals"))).isZero();

    assertThat(body.get("topWindowSeconds").asInt()).isEqualTo(60);
    assertThat(body.get("topRefused").toString())
        .isEqualTo(
            "[{\"domain\":\"api\",\"rule\":\"client\",\"descriptor\":\""
                + DecisionRecorder.shownKey("client=c1")
                + "\",\"refusals\":3},"
                + "{\"domain\":\"api\",\"rule\":\"blocked\",\"descriptor\":\""
                + DecisionRecorder.shownKey("blocked=b")
                + "\",\"refusals\":1}]");

    JsonNode config = body.get("config");
    assertThat(config.get("path").asText()).endsWith("api.yaml");
    assertThat(config.get("lastReloadError").isNull()).isTrue();
    JsonNode rules = find(config.get("domains"), "domain", "api").get("rules");
    assertThat(find(rules, "rule", "client").get("limits").asText()).isEqualTo("2 per 1m");
    assertThat(find(rules, "rule", "user").get("limits").asText())
        .isEqualTo("5 per 10s, 12 per 90s");
    assertThat(find(rules, "rule", "blocked").get("limits").asText())
        .isEqualTo("0 per 1s (always refused)");
    assertThat(find(rules, "rule", "free").get("limits").asText()).isEqualTo("unlimited");
    assertThat(find(rules, "rule", "trial").get("shadowMode").asBoolean()).isTrue();
    assertThat(find(rules, "rule", "trial").get("source").asText()).contains("api.yaml line");

    assertThat(body.get("backend").toString())
        .isEqualTo(
            "{\"backend\":\"memory\",\"store\":\"in memory\",\"state\":\"up\",\"errors\":0}");
  }

  @Test
  void page_andItsFiles_servedWithAStrictContentSecurityPolicy() throws Exception {
    for (String path : new String[] {"/", "/dashboard"}) {
      HttpResponse<String> page = get(path);
      assertThat(page.statusCode()).isEqualTo(200);
      assertThat(page.headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
      assertThat(page.headers().firstValue("Content-Security-Policy").orElseThrow())
          .contains("default-src 'none'")
          .contains("script-src 'self';")
          .doesNotContain("unsafe");
      assertThat(page.body())
          .contains("\"dashboard/dashboard.js\"", "data-feed=\"/v1/dashboard\"")
          .doesNotContain("http://", "https://");
    }
    HttpResponse<String> uplot = get("/dashboard/uPlot.iife.min.js");
    assertThat(uplot.statusCode()).isEqualTo(200);
    assertThat(uplot.headers().firstValue("Content-Type"))
        .hasValue("text/javascript; charset=utf-8");
    assertThat(uplot.body()).contains("uPlot");
    assertThat(get("/dashboard/uPlot.min.css").body()).contains(".uplot");
    assertThat(get("/dashboard/dashboard.js").body()).contains("dataset.feed");
    assertThat(get("/dashboard/dashboard.css").statusCode()).isEqualTo(200);
  }

  @Test
  void dashboard_unknownPathOrMethod_refused() throws Exception {
    assertThat(get("/dashboard/nothing.js").statusCode()).isEqualTo(404);
    assertThat(get("/favicon.ico").statusCode()).isEqualTo(404);
    HttpResponse<String> post =
        client.send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + server.adminPort() + "/v1/dashboard"))
                .timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(post.statusCode()).isEqualTo(405);
    assertThat(post.headers().firstValue("Allow")).hasValue("GET");
  }
}
