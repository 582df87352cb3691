package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.slidingwindow.Decision;
import io.slidingwindow.Limit;
import io.slidingwindow.testkit.FailingLimiter;
import io.slidingwindow.testkit.FakeTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Requests sharing script calls, on a redis-server of its own so that the script calls counted by
 * {@code INFO commandstats} are this class's alone.
 */
class RedisBatchingIT {

  private static OwnRedis redis;

  @BeforeAll
  static void start() {
    redis = new OwnRedis();
  }

  @AfterAll
  static void stop() {
    if (redis != null) {
      redis.close();
    }
  }

  private static long scriptCalls() {
    return redis.scriptCalls();
  }

  /**
   * Sixteen threads on one limiter with a clock that stands still: on a shared id exactly N are
   * granted, on each thread's own id exactly its N, and the requests took fewer script calls than
   * there were requests, so some calls carried several.
   */
  @Test
  void sixteenThreads_sharedAndOwnIds_exactGrantsInFewerCalls() throws Exception {
    FakeTicker ticker = new FakeTicker();
    Limit limit = Limit.of(200, Duration.ofSeconds(1));
    RedisRateLimiter limiter =
        RedisRateLimiter.builder(redis.backend)
            .limit(limit)
            .clientTime(ticker)
            .refusalCache(0)
            .commandTimeout(Duration.ofSeconds(5))
            .failurePolicy(FailurePolicy.fallbackTo(new FailingLimiter()))
            .build();
    int threads = 16;
    int callsPerThread = 300;
    AtomicLong sharedGrants = new AtomicLong();
    long[] ownGrants = new long[threads];
    long before = scriptCalls();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<?>> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        workers.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < callsPerThread; i++) {
                    if (limiter.tryAcquire("shared", 1)) {
                      sharedGrants.incrementAndGet();
                    }
                    Decision own = limiter.decide("own-" + thread, 1);
                    if (own.allowed()) {
                      ownGrants[thread]++;
                    }
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> worker : workers) {
        worker.get(2, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(sharedGrants.get()).isEqualTo(200);
    for (int t = 0; t < threads; t++) {
      assertThat(ownGrants[t]).as("thread %d's own id", t).isEqualTo(200);
    }
    long requests = 2L * threads * callsPerThread;
    assertThat(scriptCalls() - before)
        .as("script calls for %d requests", requests)
        .isLessThan(requests);
  }

  /**
   * With Redis paused, two calls are on their way and a third request waits in the queue; all three
   * time out. The waiting one is then never sent: once Redis has run the two, a fourth request
   * (which queues behind anything left) finds exactly those two permits and its own.
   */
  @Test
  void requestTimedOutBeforeItWasSent_isNeverSent() throws Exception {
    FakeTicker ticker = new FakeTicker();
    Limit limit = Limit.of(10, Duration.ofMinutes(1));
    RedisRateLimiter limiter =
        RedisRateLimiter.builder(redis.backend)
            .limit(limit)
            .clientTime(ticker)
            .commandTimeout(Duration.ofMillis(100))
            .circuitBreaker(100, Duration.ofSeconds(1))
            .failurePolicy(FailurePolicy.failClosed())
            .build();
    RedisRateLimiter probe =
        RedisRateLimiter.builder(redis.backend)
            .limit(limit)
            .clientTime(ticker)
            .batching(false)
            .refusalCache(0)
            .commandTimeout(Duration.ofSeconds(5))
            .failurePolicy(FailurePolicy.fallbackTo(new FailingLimiter()))
            .build();
    String id = "paused";
    assertThat(probe.tryAcquire("paused-warm-up", 1)).isTrue(); // the script is loaded from here on
    long before = scriptCalls();
    redis.server.cli("CLIENT", "PAUSE", "1000", "ALL");
    List<CompletableFuture<Boolean>> answers = new ArrayList<>();
    for (int i = 0; i < Batcher.MAX_IN_FLIGHT + 1; i++) {
      answers.add(limiter.tryAcquireAsync(id, 1).toCompletableFuture());
    }
    for (CompletableFuture<Boolean> answer : answers) {
      assertThat(answer.get(5, TimeUnit.SECONDS)).as("fail-closed while paused").isFalse();
    }
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> scriptCalls() - before >= Batcher.MAX_IN_FLIGHT);
    assertThat(limiter.tryAcquireAsync(id, 1).toCompletableFuture().get(5, TimeUnit.SECONDS))
        .isTrue();
    Decision all = probe.decide(id, 10); // refused, so nothing recorded
    assertThat(all.allowed()).isFalse();
    assertThat(all.remaining())
        .as("the calls sent and the fourth, not the dropped one")
        .isEqualTo(10 - Batcher.MAX_IN_FLIGHT - 1);
  }

  /**
   * A key that holds something else (a string, a list in another layout) fails its own request
   * only: the other requests of the same call are decided, and that request gets the failure
   * policy's answer. Redis is paused so that the last three requests queue and share one call.
   */
  @Test
  void keyHoldingSomethingElse_failsItsRequestOnly() throws Exception {
    FakeTicker ticker = new FakeTicker();
    RedisRateLimiter limiter =
        RedisRateLimiter.builder(redis.backend)
            .limit(Limit.of(10, Duration.ofMinutes(1)))
            .clientTime(ticker)
            .commandTimeout(Duration.ofSeconds(5))
            .failurePolicy(FailurePolicy.failClosed())
            .build();
    redis.server.cli("SET", limiter.keysOf("string").get(0), "x");
    redis.server.cli("RPUSH", limiter.keysOf("old-layout").get(0), "17", "0", "0", "1");
    assertThat(limiter.tryAcquire("warm-up", 1)).isTrue(); // the script is loaded from here on
    long before = scriptCalls();
    redis.server.cli("CLIENT", "PAUSE", "300", "ALL");
    List<String> ids = List.of("first", "second", "string", "good", "old-layout", "also-good");
    List<CompletableFuture<Decision>> answers = new ArrayList<>();
    for (String id : ids) {
      answers.add(limiter.decideAsync(id, 1).toCompletableFuture());
    }
    List<Boolean> allowed = new ArrayList<>();
    for (CompletableFuture<Decision> answer : answers) {
      allowed.add(answer.get(10, TimeUnit.SECONDS).allowed());
    }
    assertThat(allowed).containsExactly(true, true, false, true, false, true);
    assertThat(scriptCalls() - before)
        .as("two calls alone, then one for the four queued")
        .isEqualTo(3);
    assertThat(redis.server.cli("GET", limiter.keysOf("string").get(0))).isEqualTo("x");
  }

  /**
   * A call carries at most {@link Batcher#MAX_REQUESTS} requests: with Redis paused, the first
   * requests go alone and the next 70 queue; they then leave in two calls, 64 and 6.
   */
  @Test
  void queuedRequests_leaveInCallsOfAtMostMaxRequests() throws Exception {
    FakeTicker ticker = new FakeTicker();
    RedisRateLimiter limiter =
        RedisRateLimiter.builder(redis.backend)
            .limit(Limit.of(10, Duration.ofMinutes(1)))
            .clientTime(ticker)
            .commandTimeout(Duration.ofSeconds(5))
            .failurePolicy(FailurePolicy.failClosed())
            .build();
    int queued = Batcher.MAX_REQUESTS + 6;
    assertThat(limiter.tryAcquire("max-warm-up", 1)).isTrue(); // the script is loaded from here on
    long before = scriptCalls();
    redis.server.cli("CLIENT", "PAUSE", "300", "ALL");
    List<CompletableFuture<Boolean>> answers = new ArrayList<>();
    for (int i = 0; i < Batcher.MAX_IN_FLIGHT + queued; i++) {
      answers.add(limiter.tryAcquireAsync("max-" + i, 1).toCompletableFuture());
    }
    for (CompletableFuture<Boolean> answer : answers) {
      assertThat(answer.get(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(scriptCalls() - before).isEqualTo(Batcher.MAX_IN_FLIGHT + 2);
  }
}
