package io.slidingwindow.boot4;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A run-time change of a plan's limits through the {@code slidingwindow} endpoint of a Spring Boot
 * 4 application, on each web stack, with the counts in memory (on a fake clock) and in a real Redis
 * server: rule {@code api} keys on header {@code X-Api-Key}, sells plan {@code free} at 5 a window
 * to two listed keys and gives other keys 2. A free key that spent its 5 gets exactly 3 more after
 * a raise to 8, none after a cut to 2; the endpoint is reached on the management port through a
 * real HTTP client, and the application's port has no such path. A change a web page of another
 * site sends is refused, and so is a read of a key's quota.
 */
class PlanChangeBoot4IT {

  private static final String TOMCAT_REACTIVE_MANAGEMENT =
      "org.springframework.boot.tomcat.autoconfigure.actuate.web.server"
          + ".TomcatReactiveManagementContextAutoConfiguration";

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private static RedisServerProcess redis;

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(Apps.ItemsAndOrders.class)
  static class App {
    @Bean
    FakeTicker ticker() {
      return new FakeTicker();
    }
  }

  @BeforeAll
  static void startRedis() {
    redis = RedisServerProcess.start();
  }

  @AfterAll
  static void stopRedis() {
    redis.close();
  }

  /**
   * The application on {@code stack}, its counts in memory or Redis. The Redis server's clock
   * counts there, so its window is an hour, longer than any run; the fake ticker counts in memory.
   */
  private static ConfigurableApplicationContext start(String stack, boolean inRedis) {
    String window = inRedis ? "1h" : "10s";
    Map<String, Object> properties = new HashMap<>();
    properties.put("spring.main.web-application-type", stack);
    properties.put("management.server.port", 0);
    properties.put("management.server.address", "127.0.0.1");
    properties.put("management.endpoints.web.exposure.include", "slidingwindow");
    // Boot 4 stops servers gracefully by default; closing the reactive management child context's
    // Netty server that way hung once for minutes in GracefulShutdown.abort. Nothing is in flight
    // when a test closes its application, so the servers stop at once.
    properties.put("server.shutdown", "immediate");
    if (stack.equals("reactive")) {
      // Tomcat is on this module's class path too, and Boot 4 registers the reactive management
      // server's factory for both Tomcat and Reactor Netty under one bean name: start-up would
      // stop on the second. The application runs on Netty; so does its management server.
      properties.put(
          "spring.autoconfigure.exclude", Apps.GATEWAY_REDIS + "," + TOMCAT_REACTIVE_MANAGEMENT);
    }
    String rule = "slidingwindow.http.rules.api";
    properties.put(rule + ".paths", "/api/items/**");
    properties.put(rule + ".key", "header:X-Api-Key");
    properties.put(rule + ".limits[0].permits", 2);
    properties.put(rule + ".limits[0].window", window);
    properties.put(rule + ".plans.free.limits[0].permits", 5);
    properties.put(rule + ".plans.free.limits[0].window", window);
    properties.put(rule + ".plan-keys.free[0]", "header:x-api-key:free-1");
    properties.put(rule + ".plan-keys.free[1]", "header:x-api-key:free-2");
    if (inRedis) {
      redis.cli("FLUSHALL");
      return Apps.startWithoutGateway(App.class, Apps.withRedis(redis, properties));
    }
    return Apps.startWithoutGateway(App.class, properties);
  }

  @ParameterizedTest(name = "{0}, counts in Redis: {1}")
  @CsvSource({"servlet, false", "reactive, false", "servlet, true", "reactive, true"})
  void changePlan_raisedThenCut_keepsTheCountsAndGrantsExactlyTheDifference(
      String stack, boolean inRedis) {
    try (ConfigurableApplicationContext app = start(stack, inRedis)) {
      URI uri = Apps.uri(app);
      URI management =
          URI.create(
              "http://127.0.0.1:"
                  + app.getEnvironment().getRequiredProperty("local.management.port"));
      String window = inRedis ? "1h" : "10s";

      assertThat(granted(uri, "free-1", 7)).as("free, as configured").isEqualTo(5);
      assertThat(granted(uri, "none", 3)).as("a key on no plan").isEqualTo(2);

      JsonNode raised = json(changeFree(management, "8/" + window), 200);
      assertThat(raised.get("limits").get(0).get("permits").asLong()).isEqualTo(8);
      assertThat(raised.get("before").get(0).get("permits").asLong()).isEqualTo(5);
      assertThat(raised.get("changed").asBoolean()).isTrue();
      assertThat(granted(uri, "free-1", 6)).as("the five spent are kept: 3 more of 8").isEqualTo(3);
      JsonNode spent =
          json(
              Http.get(management, "/actuator/slidingwindow/api/header:x-api-key:free-1", null),
              200);
      assertThat(spent.get("plan").asString()).isEqualTo("free");
      assertThat(spent.get("limits").get(0).get("permits").asLong()).isEqualTo(8);
      assertThat(spent.get("limits").get(0).get("used").asLong()).isEqualTo(8);

      HttpResponse<String> fromPage =
          Http.post(
              management,
              "/actuator/slidingwindow/api/plans/free",
              "{\"limits\":\"50/1h\"}",
              "Sec-Fetch-Site",
              "cross-site");
      assertThat(fromPage.statusCode()).as("from a web page: " + fromPage.body()).isEqualTo(403);
      HttpResponse<String> readByPage =
          Http.get(
              management,
              "/actuator/slidingwindow/api/header:x-api-key:free-1",
              "Sec-Fetch-Site",
              "cross-site");
      assertThat(readByPage.statusCode())
          .as("a key's quota, read by a web page: " + readByPage.body())
          .isEqualTo(403);

      json(changeFree(management, "2/" + window), 200);
      assertThat(granted(uri, "free-1", 3)).as("cut below what it spent: none").isZero();
      assertThat(granted(uri, "free-2", 4)).as("the plan's other key: the new 2").isEqualTo(2);
      assertThat(granted(uri, "none", 1)).as("keys on no plan keep the rule's 2").isZero();

      JsonNode rule = json(Http.get(management, "/actuator/slidingwindow/api", null), 200);
      JsonNode free = rule.get("plans").get("free");
      assertThat(free.get("limits").get(0).get("permits").asLong()).isEqualTo(2);
      assertThat(free.get("changed").asBoolean()).isTrue();
      assertThat(free.get("configured").get(0).get("permits").asLong()).isEqualTo(5);
      JsonNode plan =
          json(Http.get(management, "/actuator/slidingwindow/api/plans/free", null), 200);
      assertThat(plan.get("limits").get(0).get("permits").asLong()).isEqualTo(2);
      assertThat(plan.get("limits").get(0).get("window").asString()).isEqualTo(window);

      assertThat(
              Http.post(uri, "/actuator/slidingwindow/api/plans/free", "{\"limits\":\"50/1h\"}")
                  .statusCode())
          .as("the application's port cannot change plans")
          .isIn(401, 403, 404, 405);
      if (!inRedis) {
        // A window and its precision (window / 1000) later, what it spent is gone.
        app.getBean(FakeTicker.class).advance(Duration.ofMillis(10_010));
        assertThat(granted(uri, "free-1", 4)).as("a window later: the new 2").isEqualTo(2);
      }
    }
  }

  private static HttpResponse<String> changeFree(URI management, String limits) {
    return Http.post(
        management, "/actuator/slidingwindow/api/plans/free", "{\"limits\":\"" + limits + "\"}");
  }

  /** How many of {@code calls} requests with API key {@code apiKey} are granted. */
  private static int granted(URI uri, String apiKey, int calls) {
    int granted = 0;
    for (int i = 0; i < calls; i++) {
      int status = Http.get(uri, "/api/items/" + i, "X-Api-Key", apiKey).statusCode();
      assertThat(status).isIn(200, 429);
      granted += status == 200 ? 1 : 0;
    }
    return granted;
  }

  private static JsonNode json(HttpResponse<String> response, int status) {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
    return JSON.readTree(response.body());
  }
}
