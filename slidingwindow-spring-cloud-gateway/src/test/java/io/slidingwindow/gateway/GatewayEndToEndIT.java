package io.slidingwindow.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.http.LoopbackBackend;
import io.slidingwindow.testkit.redis.WithoutRedisServer;
import java.net.URI;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A real gateway (Reactor Netty on a loopback port) in front of a real backend, with the in-memory
 * backend of the limiter, driven by a real HTTP client.
 */
@WithoutRedisServer
class GatewayEndToEndIT {

  private static LoopbackBackend backend;
  private static ConfigurableApplicationContext gateway;
  private static URI uri;

  @BeforeAll
  static void start() {
    backend = LoopbackBackend.start();
    gateway = GatewayTestApplication.start(backend.uri(), Map.of());
    uri = GatewayTestApplication.uri(gateway);
  }

  @AfterAll
  static void stop() {
    gateway.close();
    backend.close();
  }

  @Test
  void route_threePerMinute_grantsThreeThenRefusesWithHeadersWithoutReachingTheBackend() {
    int before = backend.hits();

    for (int i = 0; i < 3; i++) {
      HttpResponse<String> granted = Http.get(uri, "/orders/1", "alice");
      assertThat(granted.statusCode()).as("request %d", i + 1).isEqualTo(200);
      assertThat(granted.body()).isEqualTo("ok");
      assertThat(granted.headers().firstValue("RateLimit-Policy")).hasValue("\"orders\";q=3;w=60");
      String remaining = "\"orders\";r=" + (2 - i) + ";t=";
      assertThat(granted.headers().firstValue("RateLimit"))
          .hasValueSatisfying(v -> assertThat(v).startsWith(remaining));
    }
    HttpResponse<String> refused = Http.get(uri, "/orders/1", "alice");

    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(refused.headers().firstValue("Retry-After"))
        .hasValueSatisfying(v -> assertThat(Long.parseLong(v)).isBetween(1L, 61L));
    assertThat(refused.headers().firstValue("RateLimit-Policy")).hasValue("\"orders\";q=3;w=60");
    assertThat(refused.headers().firstValue("RateLimit"))
        .hasValueSatisfying(v -> assertThat(v).startsWith("\"orders\";r=0"));
    assertThat(backend.hits() - before).as("requests that reached the backend").isEqualTo(3);
  }

  @Test
  void route_differentKeys_areLimitedApart() {
    for (int i = 0; i < 3; i++) {
      assertThat(Http.get(uri, "/orders/2", "bob").statusCode()).isEqualTo(200);
    }
    assertThat(Http.get(uri, "/orders/2", "bob").statusCode()).isEqualTo(429);

    assertThat(Http.get(uri, "/orders/2", "carol").statusCode()).isEqualTo(200);
    assertThat(Http.get(uri, "/search?q=x", "bob").statusCode())
        .as("another route counts apart")
        .isEqualTo(200);
  }

  @Test
  void route_severalLimits_reportsEachPolicy() {
    HttpResponse<String> first = Http.get(uri, "/search?q=a", "dave");
    Http.get(uri, "/search?q=b", "dave");
    HttpResponse<String> third = Http.get(uri, "/search?q=c", "dave");

    assertThat(first.headers().firstValue("RateLimit-Policy"))
        .hasValue("\"search-10s\";q=2;w=10, \"search-3600s\";q=5;w=3600");
    assertThat(first.headers().firstValue("RateLimit"))
        .hasValueSatisfying(v -> assertThat(v).startsWith("\"search-10s\";r=1;t="));
    assertThat(third.statusCode()).isEqualTo(429);
    assertThat(third.headers().firstValue("Retry-After"))
        .hasValueSatisfying(v -> assertThat(Long.parseLong(v)).isBetween(1L, 11L));
  }

  @Test
  void route_noKey_isDeniedByTheFilter() {
    int before = backend.hits();

    assertThat(Http.get(uri, "/orders/3", null).statusCode()).isEqualTo(403);
    assertThat(backend.hits()).isEqualTo(before);
  }

  @Test
  void context_limiterIsTheFiltersDefault() {
    assertThat(gateway.getBean(SlidingWindowRateLimiter.class).getConfig())
        .containsKeys("orders", "search");
  }
}
