package io.slidingwindow.redis.jedis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Decision;
import io.slidingwindow.Limit;
import io.slidingwindow.redis.FailurePolicy;
import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.redis.RedisCounters;
import io.slidingwindow.redis.RedisRateLimiter;
import io.slidingwindow.testkit.FailingLimiter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A Lettuce instance and a Jedis instance on one redis-server, with the same limits and key prefix:
 * they serve an id together, from one window (and one counter), as two Lettuce instances would.
 */
class JedisAndLettuceIT {

  private static RedisBackend lettuce;

  @BeforeAll
  static void connect() {
    lettuce = RedisBackend.standalone(SharedServer.server().uri());
  }

  @AfterAll
  static void close() {
    if (lettuce != null) {
      lettuce.close();
    }
  }

  private static RedisRateLimiter limiter(RedisBackend backend, Limit limit) {
    return RedisRateLimiter.builder(backend)
        .keyPrefix("shared")
        .limit(limit)
        .commandTimeout(Duration.ofSeconds(5))
        .failurePolicy(FailurePolicy.fallbackTo(new FailingLimiter()))
        .build();
  }

  @Test
  void alternatingClients_oneId_grantTheLimitOnceInAll() {
    Limit limit = Limit.of(10, Duration.ofMinutes(1));
    RedisRateLimiter viaLettuce = limiter(lettuce, limit);
    RedisRateLimiter viaJedis = limiter(SharedServer.jedis(), limit);
    String id = "alternating";
    int granted = 0;
    for (int i = 0; i < 20; i++) {
      boolean allowed = (i % 2 == 0 ? viaLettuce : viaJedis).tryAcquire(id, 1);
      assertThat(allowed).as("call %d", i).isEqualTo(i < 10);
      granted += allowed ? 1 : 0;
    }
    assertThat(granted).isEqualTo(10);
    Decision jedisView = viaJedis.decide(id, 1);
    Decision lettuceView = viaLettuce.decide(id, 1);
    assertThat(jedisView.allowed()).isFalse();
    assertThat(lettuceView.allowed()).isFalse();
    assertThat(jedisView.retryAfter()).isPositive();
    String tag = "u" + Base64.getUrlEncoder().withoutPadding().encodeToString(id.getBytes(UTF_8));
    assertThat(SharedServer.server().cli("KEYS", "shared:{" + tag + "}:*").lines())
        .as("one key for the id, written by both")
        .hasSize(1);
  }

  @Test
  void concurrentClientsOfBothKinds_oneId_neverGrantMoreThanTheLimit() throws Exception {
    Limit limit = Limit.of(50, Duration.ofMinutes(1));
    List<RedisRateLimiter> limiters =
        List.of(limiter(lettuce, limit), limiter(SharedServer.jedis(), limit));
    String id = "concurrent";
    AtomicInteger granted = new AtomicInteger();
    AtomicInteger byJedis = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<?>> workers = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        RedisRateLimiter mine = limiters.get(t % 2);
        boolean jedis = t % 2 == 1;
        workers.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < 40; i++) {
                    if (mine.tryAcquire(id, 1)) {
                      granted.incrementAndGet();
                      if (jedis) {
                        byJedis.incrementAndGet();
                      }
                    }
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> worker : workers) {
        worker.get(1, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(granted.get()).as("320 calls on a limit of 50 per minute").isEqualTo(50);
    assertThat(byJedis.get()).as("the Jedis threads took part").isPositive();
  }

  @Test
  void countersOfBothKinds_oneId_addToOneSum() {
    RedisCounters viaJedis =
        RedisCounters.builder(SharedServer.jedis()).keyPrefix("shared").size(10).build();
    RedisCounters viaLettuce =
        RedisCounters.builder(lettuce)
            .keyPrefix("shared")
            .size(10)
            .commandTimeout(Duration.ofSeconds(5))
            .build();
    assertThat(viaJedis.addAndGet("card-1", 3)).isEqualTo(3);
    assertThat(viaLettuce.addAndGet("card-1", 4)).isEqualTo(7);
    assertThat(viaJedis.sum("card-1")).isEqualTo(7);
    assertThat(viaJedis.count("card-1")).isEqualTo(2);
  }
}
