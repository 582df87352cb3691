package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.Decision;
import io.slidingwindow.Limit;
import io.slidingwindow.testkit.FailingLimiter;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.testkit.SlidingLogOracle;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The Redis limiter on the shared standalone server, for each client, mostly with Redis's clock.
 */
class LimiterIT {

  private static final AtomicLong IDS = new AtomicLong();

  private static String freshId() {
    return "it-" + IDS.incrementAndGet();
  }

  private static RedisRateLimiter.Builder builder(Client client) {
    return RedisRateLimiter.builder(SharedRedis.backend(client))
        .commandTimeout(Client.GENEROUS)
        .fallback(new FailingLimiter());
  }

  /**
   * Two limiter instances of eight threads each on one id, with server time: the script returns the
   * server timestamp of every grant, and no window of the exact log of those grants holds more than
   * N.
   */
  @ParameterizedTest
  @EnumSource(Client.class)
  void twoInstancesEightThreadsEach_serverTimestampsOfGrants_neverExceedAnyWindow(Client client)
      throws Exception {
    Limit perTenMillis = Limit.of(20, Duration.ofMillis(10)).withPrecision(Duration.ofMillis(1));
    Limit exactPerHundredMillis = Limit.exact(60, Duration.ofMillis(100));
    List<RedisRateLimiter> instances =
        List.of(
            builder(client).limit(perTenMillis).limit(exactPerHundredMillis).build(),
            builder(client).limit(perTenMillis).limit(exactPerHundredMillis).build());
    String id = freshId();
    int threadsPerInstance = 8;
    int callsPerThread = 400;
    List<long[]> grants = java.util.Collections.synchronizedList(new ArrayList<>());
    AtomicLong refused = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(2 * threadsPerInstance);
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<?>> workers = new ArrayList<>();
      for (RedisRateLimiter limiter : instances) {
        for (int t = 0; t < threadsPerInstance; t++) {
          workers.add(
              pool.submit(
                  () -> {
                    start.await();
                    for (int i = 0; i < callsPerThread; i++) {
                      long[] outcome = limiter.tryAcquireWithTime(id, 1);
                      if (outcome[0] == 1) {
                        grants.add(outcome);
                      } else {
                        refused.incrementAndGet();
                      }
                    }
                    return null;
                  }));
        }
      }
      start.countDown();
      for (Future<?> worker : workers) {
        worker.get(2, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
    SlidingLogOracle tenMillis = SlidingLogOracle.of(perTenMillis);
    SlidingLogOracle hundredMillis = SlidingLogOracle.of(exactPerHundredMillis);
    for (long[] grant : grants) {
      tenMillis.record(grant[1] * 1000, 1);
      hundredMillis.record(grant[1] * 1000, 1);
    }
    assertThat(refused.get()).as("the limits were reached").isPositive();
    assertThat(grants).as("some calls were granted").isNotEmpty();
    assertThat(tenMillis.maxInAnyWindow()).isLessThanOrEqualTo(20);
    assertThat(hundredMillis.maxInAnyWindow()).isLessThanOrEqualTo(60);
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void decide_serverTime_figuresOfTheBindingLimit(Client client) {
    Limit perMinute = Limit.of(5, Duration.ofMinutes(1));
    Limit perHour = Limit.of(3, Duration.ofHours(1));
    RedisRateLimiter limiter = builder(client).limit(perMinute).limit(perHour).build();
    String id = freshId();
    Decision first = limiter.decide(id, 2);
    assertThat(first.allowed()).isTrue();
    assertThat(first.limit()).isEqualTo(perHour);
    assertThat(first.remaining()).isEqualTo(1);
    assertThat(first.resetAfter())
        .isPositive()
        .isLessThanOrEqualTo(perHour.window().plus(perHour.precision()));
    Decision refused = limiter.decide(id, 2);
    assertThat(refused.allowed()).isFalse();
    assertThat(refused.limit()).isEqualTo(perHour);
    assertThat(refused.retryAfter())
        .isGreaterThan(perHour.window().minus(Duration.ofMinutes(1)))
        .isLessThanOrEqualTo(perHour.window().plus(perHour.precision()));
    assertThat(limiter.tryAcquire(id, 1)).isTrue();
    assertThat(limiter.tryAcquire(id, 1)).isFalse();
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void asyncForms_answerAsTheSyncOnes(Client client) throws Exception {
    RedisRateLimiter limiter = builder(client).limit(Limit.of(2, Duration.ofMinutes(1))).build();
    String id = freshId();
    assertThat(limiter.tryAcquireAsync(id, 1).toCompletableFuture().get(5, TimeUnit.SECONDS))
        .isTrue();
    Decision second = limiter.decideAsync(id, 1).toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertThat(second.allowed()).isTrue();
    assertThat(second.remaining()).isZero();
    assertThat(limiter.tryAcquireAsync(id, 1).toCompletableFuture().get(5, TimeUnit.SECONDS))
        .isFalse();
    assertThat(
            limiter.decideAsync(id, 1).toCompletableFuture().get(5, TimeUnit.SECONDS).retryAfter())
        .isPositive();
    assertThatThrownBy(() -> limiter.tryAcquireAsync(id, 3))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /**
   * Many buckets with permits, far more than the bound: the list never holds more than min(N, k +
   * 1) runs, and its expiry is the window plus one bucket.
   */
  @ParameterizedTest
  @EnumSource(Client.class)
  void storedRuns_manyBuckets_atMostMinOfNAndKPlusOneAndExpiryIsWindowPlusBucket(Client client) {
    FakeTicker ticker = new FakeTicker(Long.MAX_VALUE - 5_000_000);
    Limit limit =
        Limit.of(1000, Duration.ofMillis(100)).withPrecision(Duration.ofMillis(1)); // k = 100
    Limit exact = Limit.exact(30, Duration.ofMillis(100)); // k = 100 000, N = 30
    RedisRateLimiter serverTime = builder(client).limit(limit).build();
    RedisRateLimiter clientTime = builder(client).limit(limit).clientTime(ticker).build();
    String id = freshId();
    String exactId = freshId();
    String key = clientTime.keysOf(id).get(0);
    RedisRateLimiter exactClientTime = builder(client).limit(exact).clientTime(ticker).build();
    String exactKey = exactClientTime.keysOf(exactId).get(0);
    long maxRuns = 0;
    long maxExactRuns = 0;
    for (int i = 0; i < 3_000; i++) {
      clientTime.tryAcquire(id, 1 + i % 3);
      exactClientTime.tryAcquire(exactId, 1);
      ticker.advance(Duration.ofMillis(1).toNanos() / 3 + 7_000);
      if (i % 50 == 0) {
        maxRuns = Math.max(maxRuns, runs(key));
        maxExactRuns = Math.max(maxExactRuns, runs(exactKey));
      }
    }
    assertThat(maxRuns).isBetween(2L, limit.maxStoredRuns());
    assertThat(limit.maxStoredRuns()).isEqualTo(101);
    assertThat(maxExactRuns).isBetween(2L, 30L);
    String serverId = freshId();
    assertThat(serverTime.tryAcquire(serverId, 1)).isTrue();
    long pttl =
        Long.parseLong(SharedRedis.server().cli("PTTL", serverTime.keysOf(serverId).get(0)));
    assertThat(pttl)
        .as("window 100 ms + bucket 1 ms, and a quarter of that")
        .isPositive()
        .isLessThanOrEqualTo(LimiterScript.expiryMillis(101));
  }

  /**
   * The expiry is renewed when a run begins in a later quarter of T (the window plus its bucket)
   * than the newest run, not at every run and not for a grant into the newest run: a key marked
   * with a short expiry keeps it until a run begins in the next quarter.
   */
  @ParameterizedTest
  @EnumSource(Client.class)
  void expiry_renewedWhenARunBeginsInALaterQuarter_notAtEveryRun(Client client) {
    FakeTicker ticker = new FakeTicker();
    Limit limit = Limit.of(100, Duration.ofMinutes(1)); // buckets of 60 ms, T = 60 060 ms
    RedisRateLimiter limiter = builder(client).limit(limit).clientTime(ticker).build();
    long expiry = LimiterScript.expiryMillis(60_060);
    String id = freshId();
    String key = limiter.keysOf(id).get(0);
    // Client time starts at 0 when the limiter is built, so the first quarter is [0, 15 015 ms).
    assertThat(limiter.tryAcquire(id, 1)).isTrue();
    assertThat(pttl(key)).as("a new key").isBetween(expiry - 5_000, expiry);
    SharedRedis.server().cli("PEXPIRE", key, "5000");
    assertThat(limiter.tryAcquire(id, 1)).as("same bucket").isTrue();
    assertThat(pttl(key)).isBetween(1L, 5_000L);
    ticker.advance(Duration.ofMillis(100));
    assertThat(limiter.tryAcquire(id, 1)).as("a later bucket, same quarter").isTrue();
    assertThat(pttl(key)).isBetween(1L, 5_000L);
    assertThat(runs(key)).isEqualTo(2);
    ticker.advance(Duration.ofMillis(15_000)); // now 15 100 ms: the second quarter
    assertThat(limiter.tryAcquire(id, 1)).as("a run in the next quarter").isTrue();
    assertThat(runs(key)).as("the older runs still count").isEqualTo(3);
    assertThat(pttl(key)).isBetween(expiry - 5_000, expiry);
  }

  private static long pttl(String key) {
    return Long.parseLong(SharedRedis.server().cli("PTTL", key));
  }

  private static long runs(String key) {
    long length = Long.parseLong(SharedRedis.server().cli("LLEN", key));
    return length == 0
        ? 0
        : (length + 1) / 2; // a header holding the newest run, then closed-run pairs
  }

  @Test
  void scriptSha1_isWhatRedisComputes() {
    RedisServerProcess server = SharedRedis.server();
    assertThat(server.cli("SCRIPT", "LOAD", Script.LIMITER.text()))
        .isEqualTo(Script.LIMITER.sha1());
    assertThat(server.cli("SCRIPT", "LOAD", Script.COUNTER.text()))
        .isEqualTo(Script.COUNTER.sha1());
  }
}
