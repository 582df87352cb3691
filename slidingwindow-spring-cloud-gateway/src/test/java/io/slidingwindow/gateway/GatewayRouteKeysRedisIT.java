package io.slidingwindow.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.http.LoopbackBackend;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Routes whose ids differ only in braces, parentheses and percent escapes ({@code
 * gateway-route-keys.yml}), with their windows in a real redis-server: each keeps a window of its
 * own. Each route grants one request a minute per user, so a second grant to one user on any route
 * would mean two routes share a window.
 */
class GatewayRouteKeysRedisIT {

  private static final List<String> PATHS =
      List.of("/braces/1", "/parentheses/1", "/escaped/1", "/escaped-twice/1");

  private static RedisServerProcess redis;
  private static LoopbackBackend backend;
  private static ConfigurableApplicationContext gateway;
  private static URI uri;

  @BeforeAll
  static void start() {
    redis = RedisServerProcess.start();
    backend = LoopbackBackend.start();
    gateway =
        new SpringApplicationBuilder(GatewayTestApplication.class)
            .properties(
                "spring.config.name=gateway-route-keys",
                "backend.uri=" + backend.uri(),
                "slidingwindow.redis.uri=" + redis.uri(),
                "slidingwindow.redis.on-failure=refuse",
                // a loaded machine must not time out into the failure policy, which decides alone
                "slidingwindow.redis.command-timeout=5s",
                "slidingwindow.gateway.timeout=10s")
            .run();
    uri = GatewayTestApplication.uri(gateway);
  }

  @AfterAll
  static void stop() {
    gateway.close();
    backend.close();
    redis.close();
  }

  @Test
  void routesWhoseIdsDifferInBracesOrEscapes_keepTheirCountsApart() {
    for (String path : PATHS) {
      assertThat(Http.get(uri, path, "ann").statusCode())
          .as("ann's first request to %s", path)
          .isEqualTo(200);
    }
    for (String path : PATHS) {
      assertThat(Http.get(uri, path, "ann").statusCode())
          .as("ann's second request to %s", path)
          .isEqualTo(429);
    }
    assertThat(backend.hits()).isEqualTo(PATHS.size());

    // One key prefix per route, the route id's '%', '{' and '}' percent-encoded.
    assertThat(
            redis
                .cli("--scan", "--pattern", "sw:gateway.a*")
                .lines()
                .map(GatewayRouteKeysRedisIT::prefix)
                .distinct())
        .containsExactlyInAnyOrder(
            "sw:gateway.a%7Bb%7D",
            "sw:gateway.a(b)", "sw:gateway.a%257Bb%257D", "sw:gateway.a%25257Bb%25257D");
  }

  /** A key's prefix: everything before the colon that opens its id's tag. */
  private static String prefix(String key) {
    return key.substring(0, key.indexOf(":{"));
  }
}
