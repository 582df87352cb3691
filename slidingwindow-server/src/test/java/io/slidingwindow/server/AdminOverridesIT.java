package io.slidingwindow.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.testkit.LogCapture;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The admin port's run-time overrides and quota operations, on a real service with a real HTTP
 * client, counting in memory and on a real Redis (client time, on a fake ticker).
 */
class AdminOverridesIT {

  private static final String CONFIG =
      """
      domain: api
      descriptors:
        - key: api_key
          rate_limit: {window: 10s, requests_per_unit: 5}
        - key: path
          value: /open
          rate_limit: {unlimited: true}
      """;

  @TempDir Path dir;
  private final FakeTicker ticker = new FakeTicker();
  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final ObjectMapper json = new ObjectMapper();
  private final List<AutoCloseable> opened = new ArrayList<>();
  private RateLimitServer server;
  private String token;

  @AfterEach
  void stop() throws Exception {
    for (int i = opened.size() - 1; i >= 0; i--) {
      opened.get(i).close();
    }
  }

  private void start(String store, RateLimitServer.Builder builder) throws Exception {
    if (store.equals("redis")) {
      RedisServerProcess redis = RedisServerProcess.start();
      opened.add(redis);
      builder.redis(redis.uri()).redisCommandTimeout(Duration.ofSeconds(5));
    }
    server = builder.ticker(ticker).start();
    opened.add(server);
  }

  private RateLimitServer.Builder builder() throws IOException {
    Path config = dir.resolve("api.yaml");
    Files.writeString(config, CONFIG);
    return TestServers.onLoopback(config);
  }

  @ParameterizedTest
  @ValueSource(strings = {"memory", "redis"})
  void override_raisesAKey_keepsWhatWasCountedAndSparesOthers(String store) throws Exception {
    start(store, builder());
    assertThat(granted("demo-key-2", 8)).isEqualTo(5);

    HttpResponse<String> set = admin("PUT", "/v1/overrides", override("demo-key-2", "20/10s"));

    assertThat(set.statusCode()).as(set.body()).isEqualTo(200);
    JsonNode view = json.readTree(set.body());
    assertThat(view.get("rule").asText()).isEqualTo("api_key");
    assertThat(view.get("active").asBoolean()).isTrue();
    assertThat(view.get("limits").get(0).asText()).isEqualTo("20/10s");
    // 5 counted before the override stay counted: 15 more make 20 in the window.
    assertThat(granted("demo-key-2", 25)).isEqualTo(15);
    assertThat(granted("demo-key-1", 8)).isEqualTo(5);
    JsonNode refused = json.readTree(decide("demo-key-2").body()).get("statuses").get(0);
    assertThat(refused.get("limit").get("requests").asLong()).isEqualTo(20);

    ticker.advance(Duration.ofSeconds(11));
    assertThat(granted("demo-key-2", 25)).isEqualTo(20);
    assertThat(grpcGranted("demo-key-3", 25)).isEqualTo(5);
    assertThat(admin("PUT", "/v1/overrides", override("demo-key-4", "20/10s")).statusCode())
        .isEqualTo(200);
    assertThat(grpcGranted("demo-key-4", 25)).isEqualTo(20);
    assertThat(metrics()).contains("slidingwindow_server_admin_overrides 2.0");
  }

  @ParameterizedTest
  @ValueSource(strings = {"memory", "redis"})
  void override_lowered_refusesAtOnce_andDeleteRestoresTheFileLimits(String store)
      throws Exception {
    start(store, builder());
    assertThat(granted("k", 3)).isEqualTo(3);

    assertThat(admin("PUT", "/v1/overrides", override("k", "3/10s")).statusCode()).isEqualTo(200);
    assertThat(granted("k", 1)).as("the 3 counted fill the lowered limit").isZero();
    assertThat(admin("PUT", "/v1/overrides", override("j", "2/10s")).statusCode()).isEqualTo(200);
    assertThat(granted("j", 3)).isEqualTo(2);

    HttpResponse<String> removed = admin("DELETE", "/v1/overrides", descriptor("k"));
    assertThat(removed.statusCode()).as(removed.body()).isEqualTo(200);
    assertThat(json.readTree(removed.body()).get("limits").get(0).asText()).isEqualTo("3/10s");
    // Back on the file's 5/10s, with the 3 counted: 2 more.
    assertThat(granted("k", 4)).isEqualTo(2);
    assertThat(admin("DELETE", "/v1/overrides", descriptor("k")).statusCode()).isEqualTo(404);
    assertThat(json.readTree(admin("GET", "/v1/overrides", null).body()).get("overrides"))
        .hasSize(1);
    HttpResponse<String> patch = admin("PATCH", "/v1/overrides", descriptor("k"));
    assertThat(patch.statusCode()).isEqualTo(405);
    assertThat(patch.headers().firstValue("Allow")).hasValue("GET, PUT, DELETE");
  }

  @ParameterizedTest
  @ValueSource(strings = {"memory", "redis"})
  void quota_peekThenReset_showsAndForgetsTheCounts(String store) throws Exception {
    start(store, builder());
    admin("PUT", "/v1/overrides", override("q", "20/10s"));
    assertThat(granted("q", 7)).isEqualTo(7);

    HttpResponse<String> peek = admin("POST", "/v1/quota", descriptor("q"));
    assertThat(peek.statusCode()).as(peek.body()).isEqualTo(200);
    JsonNode limit = json.readTree(peek.body()).get("limits").get(0);
    assertThat(limit.get("permits").asLong()).isEqualTo(20);
    assertThat(limit.get("used").asLong()).isEqualTo(7);
    assertThat(limit.get("remaining").asLong()).isEqualTo(13);
    assertThat(json.readTree(peek.body()).get("override").asBoolean()).isTrue();
    assertThat(granted("q", 13)).as("a peek takes nothing").isEqualTo(13);

    HttpResponse<String> reset = admin("DELETE", "/v1/quota", descriptor("q"));
    assertThat(reset.statusCode()).as(reset.body()).isEqualTo(200);
    assertThat(json.readTree(reset.body()).get("limits").get(0).get("remaining").asLong())
        .isEqualTo(20);
    assertThat(granted("q", 25)).isEqualTo(20);
  }

  @ParameterizedTest
  @ValueSource(strings = {"memory", "redis"})
  void reload_keepsOverrides_evenWhenTheRuleChanges(String store) throws Exception {
    start(store, builder());
    admin("PUT", "/v1/overrides", override("r", "20/10s"));
    assertThat(granted("r", 4)).isEqualTo(4);

    Files.writeString(
        dir.resolve("api.yaml"),
        CONFIG + "  - key: other\n    rate_limit: {unit: second, requests_per_unit: 1}\n");
    assertThat(server.reloadNow()).isTrue();
    assertThat(granted("r", 25))
        .as("the same rule: its counts and the override kept")
        .isEqualTo(16);

    Files.writeString(
        dir.resolve("api.yaml"), CONFIG.replace("requests_per_unit: 5", "requests_per_unit: 6"));
    assertThat(server.reloadNow()).isTrue();
    assertThat(granted("r", 25)).as("a new rule, counting anew, still overridden").isEqualTo(20);
    assertThat(granted("s", 8)).isEqualTo(6);
    JsonNode listed = json.readTree(admin("GET", "/v1/overrides", null).body()).get("overrides");
    assertThat(listed).hasSize(1);
    assertThat(listed.get(0).get("active").asBoolean()).isTrue();

    Files.writeString(
        dir.resolve("api.yaml"),
        "domain: api\ndescriptors:\n  - key: path\n    rate_limit: {unit: second, requests_per_unit: 1}\n");
    assertThat(server.reloadNow()).isTrue();
    listed = json.readTree(admin("GET", "/v1/overrides", null).body()).get("overrides");
    assertThat(listed.get(0).get("active").asBoolean()).isFalse();
    assertThat(listed.get(0).get("rule").isNull()).isTrue();
  }

  @Test
  void redisDown_theLocalFallbackHasTheOverride_andQuotaCallsAnswer503() throws Exception {
    RedisServerProcess redis = RedisServerProcess.start();
    opened.add(redis);
    start("memory", builder().redis(redis.uri()).redisCommandTimeout(Duration.ofMillis(300)));
    admin("PUT", "/v1/overrides", override("f", "20/10s"));
    String longValue = "L".repeat(300); // an id over 256 characters, stored under its digest
    admin("PUT", "/v1/overrides", override(longValue, "20/10s"));
    assertThat(granted("f", 2)).isEqualTo(2);

    redis.kill();

    // The domain's failure policy is local: an in-memory limiter with the same overrides.
    assertThat(granted("f", 25)).isEqualTo(20);
    assertThat(granted(longValue, 25)).as("a long value keeps its override").isEqualTo(20);
    assertThat(granted("g", 8)).isEqualTo(5);
    HttpResponse<String> peek = admin("POST", "/v1/quota", descriptor("f"));
    assertThat(peek.statusCode()).as(peek.body()).isEqualTo(503);
    assertThat(json.readTree(peek.body()).get("error").asText())
        .startsWith("the store did not answer");
    assertThat(admin("DELETE", "/v1/quota", descriptor("f")).statusCode()).isEqualTo(503);
  }

  @Test
  void withAToken_everyOverridePathWantsIt() throws Exception {
    token = "adm1n-token";
    start("memory", builder().adminToken(token.toCharArray()));
    String body = override("t", "20/10s");

    HttpResponse<String> without = send("PUT", "/v1/overrides", body, null);
    HttpResponse<String> wrong = send("PUT", "/v1/overrides", body, "Bearer nope");

    assertThat(without.statusCode()).isEqualTo(401);
    assertThat(wrong.statusCode()).isEqualTo(401);
    assertThat(send("DELETE", "/v1/quota", descriptor("t"), null).statusCode()).isEqualTo(401);
    assertThat(send("GET", "/v1/overrides", null, null).statusCode()).isEqualTo(401);
    assertThat(granted("t", 8)).as("nothing was overridden").isEqualTo(5);
    assertThat(admin("PUT", "/v1/overrides", body).statusCode()).isEqualTo(200);
  }

  @Test
  void withoutAToken_aChangeForAnotherHost_isRefused() throws Exception {
    start("memory", builder());
    String body = override("h", "20/10s");

    assertThat(rawStatus("PUT", "/v1/overrides", "rebound.example:" + server.adminPort(), body))
        .isEqualTo(403);
    assertThat(rawStatus("GET", "/v1/overrides", "rebound.example", "")).isEqualTo(403);
    assertThat(rawStatus("PUT", "/v1/overrides", "localhost:" + server.adminPort(), body))
        .isEqualTo(200);
    assertThat(rawStatus("GET", "/v1/overrides", "127.0.0.1", "")).isEqualTo(200);
    // The whole port answers no such name now (AdminHostsIT); IP addresses other than the
    // loopback's pass the port's rule but not the overrides'.
    assertThat(rawStatus("GET", "/v1/stats", "rebound.example", "")).isEqualTo(403);
    assertThat(rawStatus("GET", "/v1/stats", "10.0.0.7", "")).isEqualTo(200);
    assertThat(rawStatus("GET", "/v1/overrides", "10.0.0.7", "")).isEqualTo(403);
  }

  @Test
  void badInput_answers400NamingTheField() throws Exception {
    start("memory", builder());

    assertBad(override("k", "20/10x"), "limits[0]");
    assertBad(override("k", "10000/month"), "is a calendar quota");
    assertBad(override("k", "20/10s\", \"30/10s"), "limits[1]");
    assertBad("{\"domain\":\"api\",\"entries\":[{\"key\":\"api_key\",\"value\":\"k\"}]}", "limits");
    assertBad(override("k", "20/10s").replace("\"api\"", "\"nope\""), "domain 'nope'");
    assertBad(
        "{\"domain\":\"api\",\"entries\":[{\"key\":\"api_key\"}],\"limits\":[\"1/1s\"]}",
        "entries[0].value is missing");
    assertBad(
        "{\"domain\":\"api\",\"entries\":[{\"key\":\"path\",\"value\":\"/open\"}],\"limits\":[\"1/1s\"]}",
        "unlimited");
    assertBad(
        "{\"domain\":\"api\",\"entries\":[{\"key\":\"nothing\",\"value\":\"x\"}],\"limits\":[\"1/1s\"]}",
        "entries select no rule");
    assertBad(
        "{\"domain\":\"api\",\"descriptors\":[{\"key\":\"api_key\",\"value\":\"k\"}],\"limits\":[\"1/1s\"]}",
        "unknown field 'descriptors'");
    assertBad(override("k\\ud800", "20/10s"), "entries[0].value is not Unicode text");
    assertBad(
        "{\"domain\":\"api\",\"entries\":[{\"key\":\"api_key\",\"value\":\"k\",\"vaule\":\"j\"}],"
            + "\"limits\":[\"1/1s\"]}",
        "unknown field 'vaule' in entries[0]");
    assertBad("{\"domain\":", "malformed JSON");
    assertThat(json.readTree(admin("GET", "/v1/overrides", null).body()).get("overrides"))
        .isEmpty();
  }

  @Test
  void theMostOverrides_areKept_andOneMoreIsRefused() throws Exception {
    start("memory", builder().maxAdminOverrides(2));
    assertThat(admin("PUT", "/v1/overrides", override("a", "20/10s")).statusCode()).isEqualTo(200);
    assertThat(admin("PUT", "/v1/overrides", override("b", "20/10s")).statusCode()).isEqualTo(200);

    HttpResponse<String> third = admin("PUT", "/v1/overrides", override("c", "20/10s"));

    assertThat(third.statusCode()).isEqualTo(409);
    assertThat(third.body()).contains("2 admin overrides").contains("--max-admin-overrides");
    assertThat(granted("c", 8)).isEqualTo(5);
    assertThat(admin("PUT", "/v1/overrides", override("b", "30/10s")).statusCode())
        .as("replacing one is no new one")
        .isEqualTo(200);
    admin("DELETE", "/v1/overrides", descriptor("a"));
    assertThat(admin("PUT", "/v1/overrides", override("c", "20/10s")).statusCode()).isEqualTo(200);
  }

  @Test
  void everyChange_isAudited_withADigestOfTheValues_neverTheValues() throws Exception {
    start("memory", builder());
    List<String> lines;
    try (LogCapture audit = LogCapture.atConfiguredLevel("io.slidingwindow.server.admin.audit")) {
      admin("PUT", "/v1/overrides", override("sk_live_secret", "20/10s"));
      admin("DELETE", "/v1/quota", descriptor("sk_live_secret"));
      admin("DELETE", "/v1/overrides", descriptor("sk_live_secret"));
      lines = audit.records().stream().map(LogRecord::getMessage).toList();
    }

    assertThat(lines).hasSize(3);
    assertThat(lines.get(0))
        .startsWith("admin set: domain=api entries=[api_key=sha256:")
        .contains("limits=[20/10s]", "rule=api_key", "client=127.0.0.1");
    assertThat(lines.get(1)).startsWith("admin reset:");
    assertThat(lines.get(2)).startsWith("admin remove:");
    assertThat(String.join("\n", lines)).doesNotContain("sk_live_secret");
    String digest = lines.get(0).replaceAll(".*api_key=(sha256:[^\\]]*)].*", "$1");
    assertThat(digest).hasSize("sha256:".length() + 16);
    assertThat(lines.get(2)).contains(digest);
  }

  private void assertBad(String body, String message) throws Exception {
    HttpResponse<String> answer = admin("PUT", "/v1/overrides", body);
    assertThat(answer.statusCode()).as(body).isEqualTo(400);
    assertThat(json.readTree(answer.body()).get("error").asText()).contains(message);
  }

  private static String descriptor(String key) {
    return "{\"domain\":\"api\",\"entries\":[{\"key\":\"api_key\",\"value\":\"" + key + "\"}]}";
  }

  private static String override(String key, String limit) {
    return "{\"domain\":\"api\",\"entries\":[{\"key\":\"api_key\",\"value\":\""
        + key
        + "\"}],\"limits\":[\""
        + limit
        + "\"]}";
  }

  private int granted(String key, int calls) throws Exception {
    int granted = 0;
    for (int i = 0; i < calls; i++) {
      HttpResponse<String> answer = decide(key);
      assertThat(answer.statusCode()).as(answer.body()).isIn(200, 429);
      granted += answer.statusCode() == 200 ? 1 : 0;
    }
    return granted;
  }

  private HttpResponse<String> decide(String key) throws Exception {
    String body =
        "{\"domain\":\"api\",\"descriptors\":[{\"entries\":[{\"key\":\"api_key\",\"value\":\""
            + key
            + "\"}]}]}";
    return client.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpPort() + "/v1/decide"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private int grpcGranted(String key, int calls) throws Exception {
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", server.grpcPort()).usePlaintext().build();
    try {
      RateLimitServiceGrpc.RateLimitServiceBlockingStub stub =
          RateLimitServiceGrpc.newBlockingStub(channel);
      int granted = 0;
      for (int i = 0; i < calls; i++) {
        Code code =
            stub.withDeadlineAfter(10, TimeUnit.SECONDS)
                .shouldRateLimit(EnvoyGrpcIT.request("api_key", key))
                .getOverallCode();
        granted += code == Code.OK ? 1 : 0;
      }
      return granted;
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private String metrics() throws Exception {
    return admin("GET", "/metrics", null).body();
  }

  private HttpResponse<String> admin(String method, String path, String body) throws Exception {
    return send(method, path, body, token == null ? null : "Bearer " + token);
  }

  private HttpResponse<String> send(String method, String path, String body, String authorization)
      throws Exception {
    HttpRequest.Builder request = TestServers.jsonRequest(server.adminPort(), method, path, body);
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The status of a request sent by hand, with a Host header of the test's choosing. */
  private int rawStatus(String method, String path, String host, String body) throws Exception {
    byte[] content = body.getBytes(StandardCharsets.UTF_8);
    try (Socket socket = new Socket("127.0.0.1", server.adminPort())) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(
          (method
                  + " "
                  + path
                  + " HTTP/1.1\r\nHost: "
                  + host
                  + "\r\nContent-Type: application/json\r\nContent-Length: "
                  + content.length
                  + "\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.write(content);
      out.flush();
      InputStream in = socket.getInputStream();
      String answer = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      return Integer.parseInt(answer.substring("HTTP/1.1 ".length(), "HTTP/1.1 ".length() + 3));
    }
  }
}
