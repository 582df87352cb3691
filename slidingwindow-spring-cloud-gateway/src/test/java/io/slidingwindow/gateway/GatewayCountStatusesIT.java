package io.slidingwindow.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.http.LoopbackBackend;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A gateway counts only some answers through the starter's rules ({@code slidingwindow.http.rules}
 * with {@code count-statuses}), which its WebFlux filter applies to every request before routing:
 * the status counted is the one the gateway answers with, the backend's. The route's own limiter
 * ({@code RequestRateLimiter}, 3 per minute per {@code X-User}) is kept out of the way by a user
 * per request.
 */
class GatewayCountStatusesIT {

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"memory", "redis"})
  void countStatuses_onlyFailedAnswersCount_thenEveryRequestIsRefused(String store) {
    RedisServerProcess redis = store.equals("redis") ? RedisServerProcess.start() : null;
    Map<String, Object> properties = new HashMap<>();
    properties.put("slidingwindow.http.rules.failures.paths", "/orders/**");
    properties.put("slidingwindow.http.rules.failures.key", "ip");
    properties.put("slidingwindow.http.rules.failures.count-statuses", "401");
    properties.put("slidingwindow.http.rules.failures.limits[0].permits", "3");
    properties.put("slidingwindow.http.rules.failures.limits[0].window", "1m");
    if (redis != null) {
      properties.put("slidingwindow.redis.uri", redis.uri());
      // a loaded machine must not time out into the failure policy, which decides alone
      properties.put("slidingwindow.redis.command-timeout", "5s");
      properties.put("slidingwindow.gateway.timeout", "10s");
    }
    try (LoopbackBackend backend = LoopbackBackend.start();
        ConfigurableApplicationContext gateway =
            GatewayTestApplication.start(backend.uri(), properties)) {
      URI base = GatewayTestApplication.uri(gateway);
      for (int i = 1; i <= 5; i++) {
        assertThat(Http.get(base, "/orders/" + i, "user-" + i).statusCode())
            .as("good request %d", i)
            .isEqualTo(200);
      }
      for (int i = 6; i <= 8; i++) {
        Map<String, String> failing = Map.of("X-User", "user-" + i, LoopbackBackend.STATUS, "401");
        assertThat(Http.getWith(base, "/orders/" + i, failing).statusCode())
            .as("failing request %d", i)
            .isEqualTo(401);
      }

      Map<String, String> fourth = Map.of("X-User", "user-9", LoopbackBackend.STATUS, "401");
      assertThat(Http.getWith(base, "/orders/9", fourth).statusCode()).isEqualTo(429);
      assertThat(Http.get(base, "/orders/10", "user-10").statusCode()).isEqualTo(429);
      assertThat(backend.hits()).as("requests that reached the backend").isEqualTo(8);
    } finally {
      if (redis != null) {
        redis.close();
      }
    }
  }
}
