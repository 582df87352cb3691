package io.slidingwindow.boot4;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.gateway.SlidingWindowRateLimiter;
import io.slidingwindow.testkit.http.LoopbackBackend;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter;
import org.springframework.cloud.gateway.filter.ratelimit.RedisRateLimiter;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import reactor.core.publisher.Mono;

/**
 * A real Spring Cloud Gateway 5 (Spring Cloud 2025.1, Boot 4) on Reactor Netty in front of a real
 * backend on loopback, its route limited by {@link SlidingWindowRateLimiter} through the standard
 * {@code RequestRateLimiter} filter, driven by a real HTTP client. Redis is the application's
 * ({@code spring.data.redis.*}, a real redis-server), so the gateway also defines its own {@code
 * redisRateLimiter}; the sliding-window one stays the filter's default.
 */
class GatewayBoot4IT {

  private static RedisServerProcess redis;
  private static LoopbackBackend backend;
  private static ConfigurableApplicationContext gateway;
  private static URI uri;

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class GatewayApp {

    /** The request's {@code X-User} header; none means no key (the filter answers 403). */
    @Bean
    KeyResolver userKeyResolver() {
      return exchange -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-User"));
    }
  }

  @BeforeAll
  static void start() {
    redis = RedisServerProcess.start();
    backend = LoopbackBackend.start();
    gateway =
        Apps.start(
            GatewayApp.class,
            Apps.withRedis(
                redis,
                Map.of(
                    "spring.config.name",
                    "boot4-gateway",
                    "backend.uri",
                    backend.uri().toString())));
    uri = Apps.uri(gateway);
  }

  @AfterAll
  static void stop() {
    gateway.close();
    backend.close();
    redis.close();
  }

  @Test
  void route_threePerMinute_grantsThreeThenRefusesWithHeadersWithoutReachingTheBackend() {
    int before = backend.hits();

    RateLimitAssertions.grantsThenRefuses(uri, "/orders/1", "alice", "orders", 3, 60);

    assertThat(backend.hits() - before).as("requests that reached the backend").isEqualTo(3);
    assertThat(redis.cli("--scan", "--pattern", "sw:gateway.orders:*"))
        .as("the route's keys in the application's Redis")
        .isNotBlank();
    assertThat(Http.get(uri, "/orders/1", "bob").statusCode())
        .as("another key counts apart")
        .isEqualTo(200);
  }

  @Test
  void route_noKey_isDeniedByTheFilter() {
    int before = backend.hits();

    assertThat(Http.get(uri, "/orders/2", null).statusCode()).isEqualTo(403);
    assertThat(backend.hits()).isEqualTo(before);
  }

  @Test
  void context_slidingWindowLimiterIsTheFiltersDefaultBesideTheGatewaysRedisLimiter() {
    assertThat(gateway.getBean(SlidingWindowRateLimiter.class).getConfig()).containsKey("orders");
    assertThat(gateway.getBean(RateLimiter.class)).isInstanceOf(SlidingWindowRateLimiter.class);
    assertThat(gateway.getBeansOfType(RedisRateLimiter.class)).hasSize(1);
  }
}
