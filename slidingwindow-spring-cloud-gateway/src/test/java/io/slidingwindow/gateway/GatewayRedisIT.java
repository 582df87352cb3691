package io.slidingwindow.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.slidingwindow.Limit;
import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.redis.RedisRateLimiter;
import io.slidingwindow.redis.lettuce.LettuceBackends;
import io.slidingwindow.testkit.http.LoopbackBackend;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer.OrderAnnotation;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The gateway with its windows in a real redis-server ({@code slidingwindow.redis.uri}): shared
 * with every other limiter on the same Redis, and bounded in time when Redis stalls or dies. The
 * Redis command timeout (3 s) is longer than the gateway's (300 ms) here, so that a stalled Redis
 * shows the gateway's own timeout; both policies refuse. The last test kills the server.
 */
@TestMethodOrder(OrderAnnotation.class)
class GatewayRedisIT {

  /** The gateway's timeout. */
  private static final Duration TIMEOUT = Duration.ofMillis(300);

  /** How long Redis is stalled: long enough that only the gateway's timeout can answer sooner. */
  private static final Duration STALL = Duration.ofSeconds(3);

  /** What "answered in bounded time" means here: well under the stall and the command timeout. */
  private static final Duration BOUND = Duration.ofMillis(2500);

  private static RedisServerProcess redis;
  private static LoopbackBackend backend;
  private static ConfigurableApplicationContext gateway;
  private static URI uri;

  @BeforeAll
  static void start() {
    redis = RedisServerProcess.start();
    backend = LoopbackBackend.start();
    gateway =
        GatewayTestApplication.start(
            backend.uri(),
            Map.of(
                "slidingwindow.redis.uri", redis.uri(),
                "slidingwindow.redis.command-timeout", "3s",
                "slidingwindow.redis.on-failure", "refuse",
                "slidingwindow.gateway.timeout", TIMEOUT.toMillis() + "ms",
                "slidingwindow.gateway.on-failure", "refuse"));
    uri = GatewayTestApplication.uri(gateway);
  }

  @AfterAll
  static void stop() {
    gateway.close();
    backend.close();
    redis.close();
  }

  @Test
  @Order(1)
  void route_windowsLiveInRedis_sharedWithAnotherLimiterOnTheSameKeys() {
    for (int i = 0; i < 3; i++) {
      assertThat(Http.get(uri, "/orders/1", "erin").statusCode()).isEqualTo(200);
    }
    assertThat(Http.get(uri, "/orders/1", "erin").statusCode()).isEqualTo(429);
    assertThat(redis.cli("KEYS", "sw:gateway.orders:*")).isNotBlank();

    // Another instance: the same route's limits and key prefix on the same Redis.
    try (RedisBackend other = LettuceBackends.standalone(redis.uri())) {
      RedisRateLimiter instance =
          RedisRateLimiter.builder(other)
              .keyPrefix("sw:gateway.orders")
              .limit(Limit.of(3, Duration.ofMinutes(1)))
              .build();
      assertThat(instance.tryAcquire("erin")).as("erin's 3 were granted by the gateway").isFalse();
      for (int i = 0; i < 3; i++) {
        assertThat(instance.tryAcquire("frank")).isTrue();
      }
    }
    int before = backend.hits();
    HttpResponse<String> refused = Http.get(uri, "/orders/1", "frank");
    assertThat(refused.statusCode()).as("frank's 3 were granted elsewhere").isEqualTo(429);
    assertThat(refused.headers().firstValue("RateLimit-Policy")).hasValue("\"orders\";q=3;w=60");
    assertThat(backend.hits()).isEqualTo(before);
  }

  @Test
  @Order(2)
  void route_redisStalled_gatewayTimeoutRefusesWithinBound() {
    int before = backend.hits();
    redis.cli("CLIENT", "PAUSE", Long.toString(STALL.toMillis()), "ALL");

    long start = System.nanoTime();
    HttpResponse<String> response = Http.get(uri, "/orders/2", "grace");
    Duration took = Duration.ofNanos(System.nanoTime() - start);

    assertThat(response.statusCode()).isEqualTo(429);
    assertThat(response.headers().map()).containsEntry("Retry-After", List.of("1"));
    assertThat(took).isLessThan(BOUND);
    assertThat(backend.hits()).isEqualTo(before);
    // Redis answers again once the pause is over. A key per attempt: a call the gateway gave up on
    // still runs when Redis wakes, and counts.
    AtomicInteger attempt = new AtomicInteger();
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () ->
                Http.get(uri, "/orders/2", "heidi-" + attempt.incrementAndGet()).statusCode()
                    == 200);
  }

  @Test
  @Order(3)
  void route_redisKilled_everyRequestRefusedWithinBound() {
    redis.kill();
    int before = backend.hits();

    for (int i = 0; i < 5; i++) {
      long start = System.nanoTime();
      HttpResponse<String> response = Http.get(uri, "/orders/3", "ivan");
      Duration took = Duration.ofNanos(System.nanoTime() - start);

      assertThat(response.statusCode()).as("request %d", i + 1).isEqualTo(429);
      assertThat(response.headers().firstValue("Retry-After")).isPresent();
      assertThat(took).as("request %d", i + 1).isLessThan(BOUND);
    }
    assertThat(backend.hits()).as("nothing reached the backend").isEqualTo(before);
  }
}
