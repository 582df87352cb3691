package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.slidingwindow.Decision;
import io.slidingwindow.Limit;
import io.slidingwindow.testkit.FailingLimiter;
import io.slidingwindow.testkit.FakeTicker;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Refusals answered without a round trip, for each client: on a server of its own, so that the
 * script calls counted by {@code INFO commandstats} are this class's alone.
 */
class RefusalCacheIT {

  private static OwnRedis redis;
  private static int ids;

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

  private static RedisRateLimiter.Builder builder(Client client, Limit... limits) {
    RedisRateLimiter.Builder b =
        RedisRateLimiter.builder(redis.backend(client))
            .commandTimeout(Client.GENEROUS)
            .fallback(new FailingLimiter());
    for (Limit limit : limits) {
      b.limit(limit);
    }
    return b;
  }

  private static String freshId() {
    return "cache-" + ++ids;
  }

  /**
   * 3 per second (buckets of 1 ms), granted at 0, 100 and 200 ms. From 300 ms every call is
   * refused, locally after the first, with the figures a limiter without the cache reads from Redis
   * at the same instant, until the run of bucket 0 leaves at (0 + 1) ms + 1 s - 1 µs; at that
   * microsecond the call goes to Redis again and is granted.
   */
  @ParameterizedTest
  @EnumSource(Client.class)
  void fullId_refusedLocallyWithRedisFiguresUntilItsOldestRunLeaves(Client client) {
    FakeTicker ticker = new FakeTicker(123_456_789_000L);
    Limit perSecond = Limit.of(3, Duration.ofSeconds(1));
    Limit perMinute = Limit.of(10, Duration.ofMinutes(1));
    RedisRateLimiter cached = builder(client, perSecond, perMinute).clientTime(ticker).build();
    // Same keys and clock origin, so both see the same state at the same instants.
    RedisRateLimiter uncached =
        builder(client, perSecond, perMinute).clientTime(ticker).refusalCache(0).build();
    String id = freshId();
    for (int i = 0; i < 3; i++) {
      assertThat(cached.decide(id, 1).allowed()).isTrue();
      ticker.advance(Duration.ofMillis(100));
    }
    assertThat(cached.decide(id, 1).allowed()).isFalse(); // goes to Redis, remembered
    long before = scriptCalls();
    int uncachedCalls = 0;
    long[] offsetsMicros = {0, 1, 250_000, 500_000, 700_998};
    long t300 = ticker.read();
    for (long offset : offsetsMicros) {
      ticker.set(t300 + offset * 1000);
      Decision local = cached.decide(id, 1);
      Decision remote = uncached.decide(id, 1);
      uncachedCalls++;
      assertThat(local).as("at 300 ms + %d µs", offset).isEqualTo(remote);
      assertThat(local.allowed()).isFalse();
      assertThat(local.remaining()).isZero();
      assertThat(local.retryAfter()).isEqualTo(Duration.ofNanos((700_999 - offset) * 1000));
      assertThat(cached.tryAcquire(id, 1)).isFalse();
      assertThat(cached.tryAcquireAsync(id, 1).toCompletableFuture().join()).isFalse();
      assertThat(cached.decideAsync(id, 1).toCompletableFuture().join()).isEqualTo(remote);
    }
    assertThat(scriptCalls() - before).as("script calls while full").isEqualTo(uncachedCalls);
    ticker.set(t300 + 700_999_000L);
    assertThat(cached.tryAcquire(id, 1)).as("once bucket 0 has left").isTrue();
    assertThat(scriptCalls() - before).isEqualTo(uncachedCalls + 1);
  }

  /**
   * A refusal for want of room, with no limit full, is not remembered: a smaller request may still
   * fit.
   */
  @ParameterizedTest
  @EnumSource(Client.class)
  void refusedButNotFull_notRemembered(Client client) {
    FakeTicker ticker = new FakeTicker();
    RedisRateLimiter limiter =
        builder(client, Limit.of(5, Duration.ofSeconds(1))).clientTime(ticker).build();
    String id = freshId();
    assertThat(limiter.tryAcquire(id, 3)).isTrue();
    assertThat(limiter.tryAcquire(id, 3)).isFalse();
    long before = scriptCalls();
    assertThat(limiter.decide(id, 3).allowed()).isFalse();
    assertThat(limiter.tryAcquire(id, 2)).isTrue();
    assertThat(scriptCalls() - before).isEqualTo(2);
  }

  /** Figures remembered for one number of permits are not served for another. */
  @ParameterizedTest
  @EnumSource(Client.class)
  void decide_otherPermits_goesToRedis(Client client) {
    FakeTicker ticker = new FakeTicker();
    Limit limit = Limit.of(4, Duration.ofSeconds(1));
    RedisRateLimiter limiter = builder(client, limit).clientTime(ticker).build();
    RedisRateLimiter uncached = builder(client, limit).clientTime(ticker).refusalCache(0).build();
    String id = freshId();
    assertThat(limiter.tryAcquire(id, 2)).isTrue();
    ticker.advance(Duration.ofMillis(10));
    assertThat(limiter.tryAcquire(id, 2)).isTrue();
    assertThat(limiter.decide(id, 1).allowed()).isFalse();
    long before = scriptCalls();
    Decision two = limiter.decide(id, 2);
    assertThat(scriptCalls() - before).isEqualTo(1);
    assertThat(two).isEqualTo(uncached.decide(id, 2));
    assertThat(limiter.tryAcquire(id, 4)).isFalse();
    assertThat(scriptCalls() - before).as("tryAcquire of any size is refused locally").isEqualTo(2);
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void countingRefusedAttempts_everyRefusalReachesRedis(Client client) {
    FakeTicker ticker = new FakeTicker();
    RedisRateLimiter limiter =
        builder(client, Limit.of(1, Duration.ofSeconds(1)))
            .clientTime(ticker)
            .countRefusedAttempts(true)
            .build();
    String id = freshId();
    assertThat(limiter.tryAcquire(id, 1)).isTrue();
    long before = scriptCalls();
    for (int i = 0; i < 5; i++) {
      assertThat(limiter.tryAcquire(id, 1)).isFalse();
      assertThat(limiter.decide(id, 1).allowed()).isFalse();
    }
    assertThat(scriptCalls() - before).isEqualTo(10);
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void cacheOff_everyRefusalReachesRedis(Client client) {
    FakeTicker ticker = new FakeTicker();
    RedisRateLimiter limiter =
        builder(client, Limit.of(1, Duration.ofSeconds(1)))
            .clientTime(ticker)
            .refusalCache(0)
            .build();
    String id = freshId();
    assertThat(limiter.tryAcquire(id, 1)).isTrue();
    long before = scriptCalls();
    for (int i = 0; i < 5; i++) {
      assertThat(limiter.tryAcquire(id, 1)).isFalse();
    }
    assertThat(scriptCalls() - before).isEqualTo(5);
  }

  /**
   * Ids sharing the one slot of a one-slot cache replace each other: each is still refused, by
   * Redis when the other took the slot.
   */
  @ParameterizedTest
  @EnumSource(Client.class)
  void oneSlot_idsReplaceEachOther(Client client) {
    FakeTicker ticker = new FakeTicker();
    RedisRateLimiter limiter =
        builder(client, Limit.of(1, Duration.ofSeconds(1)))
            .clientTime(ticker)
            .refusalCache(1)
            .build();
    String a = freshId();
    String b = freshId();
    assertThat(limiter.tryAcquire(a, 1)).isTrue();
    assertThat(limiter.tryAcquire(b, 1)).isTrue();
    assertThat(limiter.tryAcquire(a, 1)).isFalse();
    long before = scriptCalls();
    assertThat(limiter.tryAcquire(a, 1)).isFalse();
    assertThat(scriptCalls() - before).as("a remembered").isZero();
    assertThat(limiter.tryAcquire(b, 1)).isFalse();
    assertThat(limiter.tryAcquire(a, 1)).isFalse();
    assertThat(scriptCalls() - before).as("b took the slot, a asked Redis again").isEqualTo(2);
  }

  /**
   * Server time: a full id is refused mostly without Redis, and the refusal ends on its own once
   * the window has room (real time, 2 per 2 s: long enough that the first refusal comes before the
   * window moves even on a loaded machine).
   */
  @ParameterizedTest
  @EnumSource(Client.class)
  void serverTime_refusalsMostlyLocal_andTheyEnd(Client client) {
    RedisRateLimiter limiter = builder(client, Limit.of(2, Duration.ofSeconds(2))).build();
    String id = freshId();
    assertThat(limiter.tryAcquire(id, 1)).isTrue();
    assertThat(limiter.tryAcquire(id, 1)).isTrue();
    long before = scriptCalls();
    assertThat(limiter.tryAcquire(id, 1)).as("the window is full").isFalse();
    long[] refusals = {1};
    await()
        .atMost(10, TimeUnit.SECONDS)
        .pollInterval(Duration.ofMillis(5))
        .until(
            () -> {
              if (limiter.tryAcquire(id, 1)) {
                return true;
              }
              refusals[0]++;
              return false;
            });
    assertThat(scriptCalls() - before)
        .as("script calls for %d refusals and one grant", refusals[0])
        .isLessThan(refusals[0]);
  }
}
