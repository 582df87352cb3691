package io.slidingwindow.spring.boot.actuator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.spring.boot.internal.SlidingWindowRedisLimiters;
import io.slidingwindow.spring.boot.redis.SlidingWindowRedisAutoConfiguration;
import io.slidingwindow.spring.boot.web.SlidingWindowAutoConfiguration;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** The {@code slidingwindow} health indicator against real redis-server processes. */
class SlidingWindowRedisHealthIT {

  private static final List<Limit> THREE_PER_MINUTE = List.of(Limit.of(3, Duration.ofMinutes(1)));

  private static RedisServerProcess redis;

  private final WebApplicationContextRunner runner =
      new WebApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  RedisAutoConfiguration.class,
                  SlidingWindowRedisAutoConfiguration.class,
                  SlidingWindowRedisHealthAutoConfiguration.class,
                  SlidingWindowAutoConfiguration.class));

  @BeforeAll
  static void startRedis() {
    redis = RedisServerProcess.start();
  }

  @AfterAll
  static void stopRedis() {
    redis.close();
  }

  private static Health health(org.springframework.context.ApplicationContext context) {
    return context.getBean(SlidingWindowRedisHealthIndicator.class).health();
  }

  @Test
  void healthyRedis_upWithTheLimitersCounted() {
    runner
        .withPropertyValues("spring.data.redis.port=" + redis.port())
        .run(
            context -> {
              context.getBean(RateLimiterFactory.class).create("counted", THREE_PER_MINUTE, false);
              Health health = health(context);
              assertThat(health.getStatus()).isEqualTo(Status.UP);
              assertThat(health.getDetails())
                  .containsEntry("detail", "OK")
                  .containsEntry("limiters", 1)
                  .containsEntry("breakersOpen", 0)
                  .doesNotContainKey("problem");
            });
  }

  @Test
  void replica_downWithReadOnlyReplica() {
    try (RedisServerProcess replica = RedisServerProcess.start()) {
      replica.cli("REPLICAOF", redis.host(), Integer.toString(redis.port()));
      runner
          .withPropertyValues("spring.data.redis.port=" + replica.port())
          .run(
              context -> {
                Health health = health(context);
                assertThat(health.getStatus()).isEqualTo(Status.DOWN);
                assertThat(health.getDetails())
                    .containsEntry("problem", "READ_ONLY_REPLICA")
                    .containsKey("explanation");
                assertThat((String) health.getDetails().get("detail")).startsWith("READONLY");
              });
    }
  }

  @Test
  void scriptingDisabled_downWithScriptingDisabled() {
    try (RedisServerProcess noScripts =
        RedisServerProcess.startWithConfig(
            "rename-command EVAL \"\"", "rename-command EVALSHA \"\"")) {
      runner
          .withPropertyValues("slidingwindow.redis.uri=" + noScripts.uri())
          .run(
              context -> {
                Health health = health(context);
                assertThat(health.getStatus()).isEqualTo(Status.DOWN);
                assertThat(health.getDetails()).containsEntry("problem", "SCRIPTING_DISABLED");
              });
    }
  }

  @Test
  void redisKilled_downWithTheOpenBreakersCounted() {
    try (RedisServerProcess doomed = RedisServerProcess.start()) {
      runner
          .withPropertyValues(
              "spring.data.redis.port=" + doomed.port(), "slidingwindow.redis.health-timeout=200ms")
          .run(
              context -> {
                KeyedRateLimiter<String> limiter =
                    context
                        .getBean(RateLimiterFactory.class)
                        .create("doomed", THREE_PER_MINUTE, false);
                assertThat(limiter.tryAcquire("client")).isTrue();
                doomed.kill();
                SlidingWindowRedisLimiters limiters =
                    context.getBean(SlidingWindowRedisLimiters.class);
                await()
                    .atMost(Duration.ofSeconds(10))
                    .until(
                        () -> {
                          limiter.tryAcquire("client");
                          return limiters.breakersOpen() == 1;
                        });
                Health health = health(context);
                assertThat(health.getStatus()).isEqualTo(Status.DOWN);
                assertThat(health.getDetails())
                    .containsEntry("limiters", 1)
                    .containsEntry("breakersOpen", 1);
              });
    }
  }

  @Test
  void noRedis_noIndicator() {
    runner.run(
        context ->
            assertThat(context)
                .hasNotFailed()
                .doesNotHaveBean(SlidingWindowRedisHealthIndicator.class));
  }

  @Test
  void disabledByManagementProperty_noIndicator() {
    runner
        .withPropertyValues(
            "spring.data.redis.port=" + redis.port(),
            "management.health.slidingwindow.enabled=false")
        .run(
            context ->
                assertThat(context)
                    .hasNotFailed()
                    .doesNotHaveBean(SlidingWindowRedisHealthIndicator.class));
  }

  /** A web application with the actuator and one rate-limited endpoint. */
  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  @Import(HealthApp.Hello.class)
  static class HealthApp {

    @RestController
    static class Hello {
      @GetMapping("/hello")
      String hello() {
        return "hello";
      }
    }
  }

  @Test
  void actuatorOverHttp_limitsInTheApplicationsRedisAndHealthUpThenDown() throws Exception {
    try (RedisServerProcess server = RedisServerProcess.start();
        ConfigurableApplicationContext app =
            new SpringApplicationBuilder(HealthApp.class)
                .properties(
                    Map.of(
                        "server.address", "127.0.0.1",
                        "server.port", "0",
                        "spring.data.redis.port", Integer.toString(server.port()),
                        "management.endpoint.health.show-details", "always",
                        "slidingwindow.http.rules.hello.paths", "/hello",
                        "slidingwindow.http.rules.hello.limits[0].permits", "2",
                        "slidingwindow.http.rules.hello.limits[0].window", "1m"))
                .run()) {
      String base = "http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port");
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      List<Integer> statuses = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        statuses.add(get(http, base + "/hello").statusCode());
      }
      assertThat(statuses).containsExactly(200, 200, 429);
      assertThat(Long.parseLong(server.cli("DBSIZE"))).as("keys in spring.data.redis").isPositive();

      HttpResponse<String> up = get(http, base + "/actuator/health/slidingwindow");
      assertThat(up.statusCode()).isEqualTo(200);
      assertThat(up.body()).contains("\"status\":\"UP\"").contains("\"limiters\":1");

      server.cli("REPLICAOF", "127.0.0.1", Integer.toString(redis.port()));
      HttpResponse<String> down = get(http, base + "/actuator/health/slidingwindow");
      assertThat(down.statusCode()).isEqualTo(503);
      assertThat(down.body()).contains("\"status\":\"DOWN\"").contains("READ_ONLY_REPLICA");
    }
  }

  private static HttpResponse<String> get(HttpClient http, String uri) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(10)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
