package io.slidingwindow.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Decision;
import io.slidingwindow.Limit;
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
import org.junit.jupiter.api.Test;

/**
 * A Lettuce instance and a Jedis instance with the same limits and key prefix, on one server and on
 * the Cluster: they serve an id together, from one window (and one counter), as two instances of
 * one client would.
 */
class CrossClientIT {

  private static RedisRateLimiter limiter(RedisBackend backend, String prefix, Limit limit) {
    return RedisRateLimiter.builder(backend)
        .keyPrefix(prefix)
        .limit(limit)
        .commandTimeout(Client.GENEROUS)
        .fallback(new FailingLimiter())
        .build();
  }

  @Test
  void alternatingClients_oneId_grantTheLimitOnceInAll() {
    Limit limit = Limit.of(10, Duration.ofMinutes(1));
    RedisRateLimiter viaLettuce = limiter(SharedRedis.backend(Client.LETTUCE), "shared", limit);
    RedisRateLimiter viaJedis = limiter(SharedRedis.backend(Client.JEDIS), "shared", limit);
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
    assertThat(SharedRedis.server().cli("KEYS", "shared:{" + tag + "}:*").lines())
        .as("one key for the id, written by both")
        .hasSize(1);
  }

  @Test
  void concurrentClientsOfBothKinds_oneId_neverGrantMoreThanTheLimit() throws Exception {
    Limit limit = Limit.of(50, Duration.ofMinutes(1));
    List<RedisRateLimiter> limiters =
        List.of(
            limiter(SharedRedis.backend(Client.LETTUCE), "shared", limit),
            limiter(SharedRedis.backend(Client.JEDIS), "shared", limit));
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
        RedisCounters.builder(SharedRedis.backend(Client.JEDIS))
            .keyPrefix("shared")
            .size(10)
            .commandTimeout(Client.GENEROUS)
            .build();
    RedisCounters viaLettuce =
        RedisCounters.builder(SharedRedis.backend(Client.LETTUCE))
            .keyPrefix("shared")
            .size(10)
            .commandTimeout(Client.GENEROUS)
            .build();
    assertThat(viaJedis.addAndGet("card-1", 3)).isEqualTo(3);
    assertThat(viaLettuce.addAndGet("card-1", 4)).isEqualTo(7);
    assertThat(viaJedis.sum("card-1")).isEqualTo(7);
    assertThat(viaJedis.count("card-1")).isEqualTo(2);
  }

  @Test
  void bothClientsOnTheCluster_oneId_shareOneWindow() {
    Limit limit = Limit.of(6, Duration.ofMinutes(1));
    List<RedisRateLimiter> limiters =
        List.of(
            limiter(SharedCluster.backend(Client.LETTUCE), "both", limit),
            limiter(SharedCluster.backend(Client.JEDIS), "both", limit));
    for (int id = 0; id < 10; id++) {
      int granted = 0;
      for (int i = 0; i < 12; i++) {
        boolean allowed = limiters.get(i % 2).tryAcquire("both-" + id, 1);
        assertThat(allowed).as("id %d, call %d", id, i).isEqualTo(i < 6);
        granted += allowed ? 1 : 0;
      }
      assertThat(granted).isEqualTo(6);
    }
  }
}
