package io.slidingwindow.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.slidingwindow.server.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitRequest;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitResponse;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.slidingwindow.server.envoy.type.v3.RateLimitUnit;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a client or an operator may get wrong, against a real service: bodies that a lenient reader
 * would take for something else, a request refused after part of it was counted, rules whose paths
 * read alike, a configuration file that is briefly unreadable.
 */
class HostileInputIT {

  private static final String CONFIG =
      """
      domain: web
      descriptors:
        - key: client
          rate_limit: {unit: minute, requests_per_unit: 3}
        - key: a_b
          rate_limit: {unit: minute, requests_per_unit: 2}
        - key: a
          value: b
          rate_limit: {unit: minute, requests_per_unit: 2}
      """;

  @TempDir Path dir;
  private final FakeTicker ticker = new FakeTicker();
  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final ObjectMapper json = new ObjectMapper();
  private final List<AutoCloseable> opened = new ArrayList<>();
  private Path config;
  private RateLimitServer server;

  private void start(UnaryOperator<RateLimitServer.Builder> settings) throws Exception {
    config = dir.resolve("web.yaml");
    Files.writeString(config, CONFIG);
    server = settings.apply(TestServers.onLoopback(config).ticker(ticker)).start();
    opened.add(0, server);
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable resource : opened) {
      resource.close();
    }
  }

  @Test
  void decide_unknownFieldDuplicateKeyOrTextAfterTheObject_answered400AndCountsNothing()
      throws Exception {
    start(b -> b);
    String entries = "[{\"key\": \"client\", \"value\": \"t\"}]";

    assertError(
        post(
            "{\"domain\": \"web\", \"descriptors\": [{\"entries\": " + entries + ", \"hit\": 3}]}"),
        "unknown field 'hit' in descriptors[0]");
    assertError(
        post(
            "{\"domain\": \"web\", \"hitsAddend\": 3, \"descriptors\": [{\"entries\": "
                + entries
                + "}]}"),
        "unknown field 'hitsAddend'");
    assertError(
        post(
            "{\"domain\": \"web\", \"descriptors\": [{\"entries\": [{\"key\": \"client\","
                + " \"valeu\": \"t\"}]}]}"),
        "unknown field 'valeu' in descriptors[0].entries[0]");
    assertError(
        post(
            "{\"domain\": \"web\", \"hits\": 3, \"hits\": 0, \"descriptors\": [{\"entries\": "
                + entries
                + "}]}"),
        "malformed JSON: Duplicate field 'hits'");
    assertError(
        post(
            "{\"domain\": \"web\", \"descriptors\": [{\"entries\": "
                + entries
                + "}], \"descriptors\": [{\"entries\": [{\"key\": \"other\", \"value\": \"t\"}]}]}"),
        "malformed JSON: Duplicate field 'descriptors'");
    assertError(
        post("{\"domain\": \"web\", \"descriptors\": [{\"entries\": " + entries + "}]} {\"x\": 1}"),
        "malformed JSON");

    HttpResponse<String> valid =
        post("{\"domain\": \"web\", \"descriptors\": [{\"entries\": " + entries + "}]}");
    assertThat(valid.statusCode()).isEqualTo(200);
    assertThat(json.readTree(valid.body()).get("statuses").get(0).get("remaining").asLong())
        .as("nothing counted by the refused bodies")
        .isEqualTo(2);
  }

  @Test
  void json_duplicateFieldOrTextAfterTheObject_answered400() throws Exception {
    start(b -> b);
    String entries = "[{\"entries\": [{\"key\": \"client\", \"value\": \"j\"}]}]";

    assertError(
        post("/json", "{\"domain\": \"web\", \"domain\": \"x\", \"descriptors\": " + entries + "}"),
        "not a RateLimitRequest in JSON: Duplicate field 'domain'");
    assertError(
        post("/json", "{\"domain\": \"web\", \"descriptors\": " + entries + "} trailing"),
        "not a RateLimitRequest in JSON");
    assertError(
        post("/json", "{\"domain\": \"web\", \"descriptors\": " + entries + "} {}"),
        "not a RateLimitRequest in JSON: text after the object");
    // protobuf reads both spellings of a field; it would take the 5 here and refuse the reverse
    assertError(
        post(
            "/json",
            "{\"domain\": \"web\", \"hits_addend\": 0, \"hitsAddend\": 5, \"descriptors\": "
                + entries
                + "}"),
        "not a RateLimitRequest in JSON: Duplicate field 'hitsAddend' in two spellings");
    assertError(
        post(
            "/json",
            "{\"domain\": \"web\", \"descriptors\": [{\"entries\": [{\"key\": \"client\","
                + " \"value\": \"j\"}], \"hitsAddend\": 0, \"hits_addend\": 2}]}"),
        "not a RateLimitRequest in JSON: Duplicate field 'hits_addend' in two spellings");
    HttpResponse<String> valid =
        post(
            "/json", "{\"domain\": \"web\", \"hits_addend\": 1, \"descriptors\": " + entries + "}");
    assertThat(valid.statusCode()).isEqualTo(200);
    assertThat(json.readTree(valid.body()).get("statuses").get(0).get("limitRemaining").asLong())
        .as("nothing counted by the refused bodies")
        .isEqualTo(2);
  }

  /**
   * A JSON escape can spell half a surrogate pair, text that no UTF-8 carries: gRPC could never
   * send it (a Java client sends {@code ?} in its place), so HTTP must not count it either.
   */
  @Test
  void decideAndJson_aLoneSurrogateEscape_answered400AndCountsNothing() throws Exception {
    start(b -> b);

    assertError(
        post(
            "{\"domain\": \"web\", \"descriptors\": [{\"entries\": [{\"key\": \"client\","
                + " \"value\": \"a\\ud800\"}]}]}"),
        "descriptors[0].entries[0].value is not Unicode text: an unpaired surrogate at index 1");
    assertError(
        post(
            "{\"domain\": \"web\", \"descriptors\": [{\"entries\": [{\"key\": \"\\udc00\","
                + " \"value\": \"x\"}]}]}"),
        "descriptors[0].entries[0].key is not Unicode text");
    assertError(
        post(
            "/json",
            "{\"domain\": \"web\", \"descriptors\": [{\"entries\": [{\"key\": \"client\","
                + " \"value\": \"\\ud800\"}]}]}"),
        "descriptors[0].entries[0].value is not Unicode text");
    assertError(
        post("/json", "{\"domain\": \"w\\ud800\", \"descriptors\": []}"),
        "domain is not Unicode text");

    HttpResponse<String> pair =
        post(
            "{\"domain\": \"web\", \"descriptors\": [{\"entries\": [{\"key\": \"client\","
                + " \"value\": \"\\ud83d\\ude00\"}]}]}");
    assertThat(pair.statusCode()).as("a whole pair is text: %s", pair.body()).isEqualTo(200);
    assertThat(decide("client", "\ud83d\ude00")).isEqualTo(200);
    assertThat(decide("client", "\ud83d\ude00")).isEqualTo(200);
    assertThat(decide("client", "\ud83d\ude00"))
        .as("the escaped pair and the text sent as UTF-8 share one count")
        .isEqualTo(429);
  }

  /**
   * A new override limit in a full domain failed the whole call with INVALID_ARGUMENT, which Envoy
   * takes as leave to pass the request with none of its descriptors counted: now that descriptor
   * alone is OVER_LIMIT, and the request's other descriptors are counted as ever.
   */
  @Test
  void shouldRateLimit_overrideRefusedForAFullDomain_overLimitForItAlone_othersCounted()
      throws Exception {
    start(b -> b.maxOverrideLimits(1));
    RateLimitServiceGrpc.RateLimitServiceBlockingStub stub = grpc();
    RateLimitRequest inUse =
        RateLimitRequest.newBuilder().setDomain("web").addDescriptors(overridden("x", 1)).build();
    assertThat(stub.shouldRateLimit(inUse).getOverallCode()).isEqualTo(RateLimitResponse.Code.OK);

    RateLimitRequest both =
        RateLimitRequest.newBuilder()
            .setDomain("web")
            .addDescriptors(EnvoyGrpcIT.descriptor("client", "c"))
            .addDescriptors(overridden("y", 7))
            .build();
    RateLimitResponse answer = stub.shouldRateLimit(both);
    assertThat(answer.getOverallCode()).isEqualTo(RateLimitResponse.Code.OVER_LIMIT);
    assertThat(answer.getStatuses(0).getCode()).isEqualTo(RateLimitResponse.Code.OK);
    assertThat(answer.getStatuses(1).getCode()).isEqualTo(RateLimitResponse.Code.OVER_LIMIT);

    RateLimitRequest alone =
        RateLimitRequest.newBuilder()
            .setDomain("web")
            .addDescriptors(EnvoyGrpcIT.descriptor("client", "c"))
            .build();
    assertThat(stub.shouldRateLimit(alone).getStatuses(0).getLimitRemaining())
        .as("the other descriptor of the request was counted")
        .isEqualTo(1);
  }

  @Test
  void reload_afterTheFileWasBrieflyUnreadable_sameContentClearsTheReloadError() throws Exception {
    start(b -> b);
    Path aside = dir.resolve("aside");
    Files.move(config, aside);

    assertThat(server.reloadNow()).isFalse();
    assertThat(server.lastReloadError()).contains("cannot read the configuration");
    assertThat(adminStats().get("lastReloadError").asText()).contains("cannot read");

    Files.move(aside, config);
    server.reloadNow();

    assertThat(server.lastReloadError()).isNull();
    assertThat(adminStats().get("lastReloadError").isNull())
        .as("/v1/stats: %s", adminStats())
        .isTrue();
  }

  @Test
  void reload_rulesWhosePathsReadAlike_keepCountsApart() throws Exception {
    start(b -> b);
    Files.writeString(config, CONFIG + "# a comment: the rules are the same\n");
    assertThat(server.reloadNow()).isTrue();

    assertThat(decide("a", "b")).isEqualTo(200);
    assertThat(decide("a", "b")).isEqualTo(200);
    assertThat(decide("a", "b")).isEqualTo(429);

    assertThat(decide("a_b", "b")).as("key a_b is another rule than key a, value b").isEqualTo(200);
  }

  @Test
  void decide_onRedis_rulesWhosePathsReadAlike_keepCountsApart() throws Exception {
    RedisServerProcess redis = RedisServerProcess.start();
    opened.add(redis);
    start(b -> b.redis(redis.uri()).redisCommandTimeout(Duration.ofSeconds(5)));

    assertThat(decide("a", "b")).isEqualTo(200);
    assertThat(decide("a", "b")).isEqualTo(200);
    assertThat(decide("a", "b")).isEqualTo(429);

    assertThat(decide("a_b", "b")).as("key a_b is another rule than key a, value b").isEqualTo(200);
  }

  private static RateLimitDescriptor overridden(String client, int requests) {
    return EnvoyGrpcIT.descriptor("client", client).toBuilder()
        .setLimit(
            RateLimitDescriptor.RateLimitOverride.newBuilder()
                .setRequestsPerUnit(requests)
                .setUnit(RateLimitUnit.HOUR))
        .build();
  }

  private RateLimitServiceGrpc.RateLimitServiceBlockingStub grpc() {
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", server.grpcPort()).usePlaintext().build();
    opened.add(() -> channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS));
    return RateLimitServiceGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS);
  }

  private int decide(String key, String value) throws Exception {
    return post("{\"domain\": \"web\", \"descriptors\": [{\"entries\": [{\"key\": \""
            + key
            + "\", \"value\": \""
            + value
            + "\"}]}]}")
        .statusCode();
  }

  private JsonNode adminStats() throws Exception {
    HttpResponse<String> stats =
        client.send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + server.adminPort() + "/v1/stats"))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    return json.readTree(stats.body());
  }

  private HttpResponse<String> post(String body) throws Exception {
    return post("/v1/decide", body);
  }

  private HttpResponse<String> post(String path, String body) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpPort() + path))
            .timeout(Duration.ofSeconds(10))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private void assertError(HttpResponse<String> response, String message) throws Exception {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
    assertThat(json.readTree(response.body()).get("error").asText()).contains(message);
  }
}
