package io.slidingwindow.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
}
