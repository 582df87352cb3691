package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.slidingwindow.Decision;
import io.slidingwindow.FailurePolicy;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.testkit.CallerThreads;
import io.slidingwindow.testkit.FailingLimiter;
import io.slidingwindow.testkit.FakeTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Faults under load, for each client, against a server of each test's own: killed and restarted,
 * paused, scripts flushed, the breaker open, a local limiter standing in.
 */
class FaultsIT {

  private static final Limit GENEROUS = Limit.of(1_000_000_000, Duration.ofSeconds(1));

  /** Generous: the machine running this also runs other builds. */
  private static final Duration BOUND = Duration.ofSeconds(60);

  /**
   * Threads that call the limiter until stopped (or their bound passes), alternating blocking and
   * asynchronous calls, on the id {@code ids} gives each thread, sorting the answers: grants,
   * refusals by Redis (whose retry-after is longer than ten minutes in the tests that tell them
   * apart) and refusals by the failure policy.
   */
  private static final class Load {
    final AtomicLong allowed = new AtomicLong();
    final AtomicLong refusedByRedis = new AtomicLong();
    final AtomicLong refusedByPolicy = new AtomicLong();
    final CallerThreads threads;

    Load(RedisRateLimiter limiter, int count, IntFunction<String> ids) {
      threads =
          CallerThreads.start(
              count,
              (t, i) -> {
                String id = ids.apply(t);
                Decision decision =
                    i % 2 == 0
                        ? limiter.decide(id, 1)
                        : limiter.decideAsync(id, 1).toCompletableFuture().get();
                if (decision.allowed()) {
                  allowed.incrementAndGet();
                } else if (decision.retryAfter().compareTo(Duration.ofMinutes(10)) > 0) {
                  refusedByRedis.incrementAndGet();
                } else {
                  refusedByPolicy.incrementAndGet();
                }
              });
    }

    long calls() {
      return threads.calls();
    }

    long refused() {
      return refusedByRedis.get() + refusedByPolicy.get();
    }

    void stop() {
      threads.stop();
    }

    @Override
    public String toString() {
      return "allowed "
          + allowed
          + ", refused by Redis "
          + refusedByRedis
          + ", refused by the policy "
          + refusedByPolicy
          + "; "
          + threads;
    }
  }

  /**
   * Four threads on ids of their own and a limit no one reaches: killed, Redis is answered for by
   * REFUSE within the timeout; restarted, it grants again. Nothing escapes, no call waits long.
   */
  @ParameterizedTest
  @EnumSource(Client.class)
  void redisKilledUnderLoad_refuseAnswersWithinTheTimeoutAndRedisAnswersAgainAfterRestart(
      Client client) throws Exception {
    Duration timeout = Duration.ofMillis(50);
    try (OwnServer redis = new OwnServer(client, timeout)) {
      RedisRateLimiter limiter =
          RedisRateLimiter.builder(redis.backend)
              .limit(GENEROUS)
              .commandTimeout(timeout)
              .circuitBreaker(3, Duration.ofMillis(200))
              .failurePolicy(FailurePolicy.REFUSE)
              .build();
      Load load = new Load(limiter, 4, t -> "load-" + t);
      try {
        await().atMost(BOUND).until(() -> load.allowed.get() > 500);
        redis.server.kill();
        long refusedAtKill = load.refused();
        await().atMost(BOUND).until(() -> load.refused() > refusedAtKill + 500);
        redis.server.restart();
        long allowedAtRestart = load.allowed.get();
        await()
            .atMost(BOUND)
            .untilAsserted(
                () ->
                    assertThat(load.allowed.get())
                        .as("grants since the restart; load: %s", load)
                        .isGreaterThan(allowedAtRestart + 500));
      } finally {
        load.stop();
      }
      assertThat(load.threads.escaped()).as("exceptions that escaped the limiter").isEmpty();
      // Far above the timeout, to leave room for a loaded machine's pauses, and far below what a
      // call that waited for the connection (10 s to connect) would take.
      assertThat(load.threads.slowest())
          .as("slowest call; the timeout is %s", timeout)
          .isLessThan(Duration.ofSeconds(3));
    }
  }

  /**
   * Four threads on one id whose limit is 500 an hour. Redis grants exactly 500 and then refuses;
   * killed, it is answered for by REFUSE, which grants nothing, within the timeout; restarted
   * (empty: its data is not kept), it grants up to 500 more and refuses again. Any grant beyond
   * those 2 * 500 would have escaped the limit.
   */
  @ParameterizedTest
  @EnumSource(Client.class)
  void redisKilledUnderLoad_noGrantBeyondTheLimitBeforeOrAfterTheRestart(Client client)
      throws Exception {
    Duration timeout = Duration.ofSeconds(1);
    int limit = 500;
    try (OwnServer redis = new OwnServer(client, timeout)) {
      RedisRateLimiter limiter =
          RedisRateLimiter.builder(redis.backend)
              .limit(Limit.of(limit, Duration.ofHours(1)))
              .commandTimeout(timeout)
              .circuitBreaker(3, Duration.ofMillis(200))
              .refusalCache(0) // every refusal comes from Redis, also after the restart
              .failurePolicy(FailurePolicy.REFUSE)
              .build();
      Load load = new Load(limiter, 4, t -> "killed");
      try {
        // A refusal on one thread can be counted before the last grant on another: wait for both.
        await()
            .atMost(BOUND)
            .untilAsserted(
                () -> {
                  assertThat(load.refusedByRedis).hasPositiveValue();
                  assertThat(load.allowed).as("grants before the kill; %s", load).hasValue(limit);
                });

        redis.server.kill();
        Duration slowestBeforeKill = load.threads.resetSlowest();
        long policyAtKill = load.refusedByPolicy.get();
        long callsAtKill = load.calls();
        await().atMost(BOUND).until(() -> load.calls() > callsAtKill + 500);
        assertThat(load.allowed).as("grants while Redis is down; %s", load).hasValue(limit);
        assertThat(load.refusedByPolicy.get())
            .as("refusals by REFUSE; %s", load)
            .isGreaterThan(policyAtKill);
        assertThat(load.threads.slowest())
            .as(
                "slowest call while Redis is down; the timeout is %s (before: %s)",
                timeout, slowestBeforeKill)
            .isLessThan(timeout.multipliedBy(5).plusSeconds(2));

        redis.server.restart();
        long redisAtRestart = load.refusedByRedis.get();
        await()
            .atMost(BOUND)
            .untilAsserted(
                () ->
                    assertThat(load.refusedByRedis.get())
                        .as("Redis refuses again once its new window is full; %s", load)
                        .isGreaterThan(redisAtRestart));
      } finally {
        load.stop();
      }
      assertThat(load.threads.escaped()).as("exceptions that escaped the limiter").isEmpty();
      // At most the limit again after the restart: a call that timed out there (the policy
      // answered it) may still have run and taken a permit no one saw, never granted one more.
      assertThat(load.allowed.get())
          .as("the limit before the kill, at most the limit after the restart; %s", load)
          .isGreaterThan(limit)
          .isLessThanOrEqualTo(2L * limit);
    }
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void scriptFlushUnderLoad_everyCallIsAnsweredByRedis(Client client) throws Exception {
    try (OwnServer redis = new OwnServer(client, Client.GENEROUS)) {
      // Any call the failure policy had to answer would throw from this fallback and be recorded.
      RedisRateLimiter limiter =
          RedisRateLimiter.builder(redis.backend)
              .limit(GENEROUS)
              .commandTimeout(Client.GENEROUS)
              .fallback(new FailingLimiter())
              .build();
      Load load = new Load(limiter, 4, t -> "load-" + t);
      try {
        for (int flush = 0; flush < 20; flush++) {
          long before = load.calls();
          await().atMost(BOUND).until(() -> load.calls() > before + 100);
          assertThat(redis.server.cli("SCRIPT", "FLUSH")).isEqualTo("OK");
        }
      } finally {
        load.stop();
      }
      assertThat(load.threads.escaped()).as("exceptions that escaped the limiter").isEmpty();
      assertThat(load.allowed.get()).isGreaterThan(2_000);
      assertThat(load.refused()).isZero();
    }
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void pausedRedis_policiesAnswerWithinTheTimeout(Client client) {
    Duration timeout = Duration.ofMillis(50);
    try (OwnServer redis = new OwnServer(client, timeout)) {
      RedisRateLimiter allow =
          RedisRateLimiter.builder(redis.backend)
              .limit(GENEROUS)
              .commandTimeout(timeout)
              .failurePolicy(FailurePolicy.ALLOW)
              .build();
      RedisRateLimiter refuse =
          RedisRateLimiter.builder(redis.backend)
              .limit(GENEROUS)
              .commandTimeout(timeout)
              .failurePolicy(FailurePolicy.REFUSE)
              .build();
      assertThat(refuse.tryAcquire("paused", 1)).as("Redis answers before the pause").isTrue();
      redis.server.cli("CLIENT", "PAUSE", "3000", "ALL");
      Decision allowed =
          assertTimeoutPreemptively(Duration.ofSeconds(1), () -> allow.decide("paused", 1));
      Decision refused =
          assertTimeoutPreemptively(Duration.ofSeconds(1), () -> refuse.decide("paused", 1));
      assertThat(allowed.allowed()).isTrue();
      assertThat(allowed.remaining()).isZero();
      assertThat(refused.allowed()).isFalse();
      assertThat(refused.retryAfter()).isPositive();
      redis.server.cli("CLIENT", "UNPAUSE");
      await().atMost(BOUND).until(() -> refuse.tryAcquire("paused", 1));
    }
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void breakerOpen_callsDoNotReachRedisUntilTheOpenTimeHasPassedOnItsClock(Client client) {
    Duration timeout = Duration.ofMillis(200);
    try (OwnServer redis = new OwnServer(client, timeout)) {
      FakeTicker breakerClock = new FakeTicker();
      RedisRateLimiter limiter =
          RedisRateLimiter.builder(redis.backend)
              .limit(GENEROUS)
              .commandTimeout(timeout)
              .circuitBreaker(3, Duration.ofSeconds(30))
              .breakerTicker(breakerClock)
              .failurePolicy(FailurePolicy.REFUSE)
              .build();
      // The backend's connection and the script are ready before the 200 ms calls count.
      RedisRateLimiter warmUp =
          RedisRateLimiter.builder(redis.backend)
              .limit(GENEROUS)
              .commandTimeout(Client.GENEROUS)
              .failurePolicy(FailurePolicy.REFUSE)
              .build();
      await().atMost(BOUND).until(() -> warmUp.tryAcquire("warm-up", 1));
      assertThat(limiter.tryAcquire("breaker", 1)).isTrue();
      redis.server.kill();
      for (int i = 0; i < 3; i++) {
        assertThat(limiter.tryAcquire("breaker", 1))
            .as("failure %d, answered by the policy", i)
            .isFalse();
      }
      assertThat(limiter.isBreakerOpen()).isTrue();
      Decision whileOpen = limiter.decide("breaker", 1);
      assertThat(whileOpen.allowed()).isFalse();
      assertThat(whileOpen.retryAfter()).isEqualTo(Duration.ofSeconds(30));

      redis.server.restart();
      // Another limiter on the same backend, with a breaker on the real clock, shows when the
      // connection is back, so that the probe below cannot fail for want of it.
      RedisRateLimiter other =
          RedisRateLimiter.builder(redis.backend)
              .limit(GENEROUS)
              .commandTimeout(timeout)
              .failurePolicy(FailurePolicy.REFUSE)
              .build();
      await().atMost(BOUND).until(() -> other.tryAcquire("other", 1));
      redis.server.cli("CONFIG", "RESETSTAT");
      breakerClock.advance(Duration.ofSeconds(30).minusNanos(1));
      for (int i = 0; i < 20; i++) {
        assertThat(limiter.tryAcquire("breaker", 1)).as("still open, call %d", i).isFalse();
      }
      assertThat(redis.server.cli("INFO", "commandstats"))
          .as("no call reached Redis")
          .doesNotContain("cmdstat_eval");
      breakerClock.advance(1);
      assertThat(limiter.tryAcquire("breaker", 1)).as("the probe, answered by Redis").isTrue();
      assertThat(limiter.isBreakerOpen()).isFalse();
      assertThat(redis.server.cli("INFO", "commandstats")).contains("cmdstat_eval");
    }
  }

  /**
   * A local limiter of 1 a minute given as the fallback: Redis's figures first, then, with Redis
   * down, the local ones on two threads, then Redis's again once it is back.
   */
  @ParameterizedTest
  @EnumSource(Client.class)
  void redisDown_givenFallbackDecides_untilRedisIsBack(Client client) throws Exception {
    Duration timeout = Duration.ofSeconds(1);
    try (OwnServer redis = new OwnServer(client, timeout)) {
      Limit local = Limit.of(1, Duration.ofMinutes(1));
      RedisRateLimiter limiter =
          RedisRateLimiter.builder(redis.backend)
              .limit(Limit.of(100, Duration.ofMinutes(1)))
              .commandTimeout(timeout)
              .fallback(KeyedRateLimiter.builder().limit(local).build())
              .build();
      assertThat(limiter.decide("down", 1).remaining()).as("from Redis").isEqualTo(99);
      redis.server.kill();
      ExecutorService pool = Executors.newFixedThreadPool(2);
      try {
        List<Future<Decision>> decisions = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
          decisions.add(pool.submit(() -> limiter.decide("down", 1)));
        }
        int granted = 0;
        for (Future<Decision> decision : decisions) {
          Decision answer = decision.get(30, TimeUnit.SECONDS);
          assertThat(answer.limit()).as("decided locally").isEqualTo(local);
          granted += answer.allowed() ? 1 : 0;
        }
        assertThat(granted).as("the local limiter's limit is 1").isEqualTo(1);
      } finally {
        pool.shutdownNow();
      }
      redis.server.restart();
      await()
          .atMost(BOUND)
          .untilAsserted(
              () ->
                  assertThat(limiter.decide("down", 1).remaining())
                      .as("from Redis, restarted empty")
                      .isEqualTo(99));
    }
  }

  /**
   * The default policy, LOCAL, with nothing set: with Redis down, an in-process limiter with the
   * same limits decides, so the id still gets 3 a minute on this instance, not more.
   */
  @ParameterizedTest
  @EnumSource(Client.class)
  void redisDown_defaultPolicy_limitsLocallyWithTheSameLimits(Client client) {
    Duration timeout = Duration.ofSeconds(1);
    try (OwnServer redis = new OwnServer(client, timeout)) {
      Limit threePerMinute = Limit.of(3, Duration.ofMinutes(1));
      RedisRateLimiter limiter =
          RedisRateLimiter.builder(redis.backend)
              .limit(threePerMinute)
              .commandTimeout(timeout)
              .build();
      assertThat(limiter.tryAcquire("before", 3)).as("from Redis").isTrue();
      redis.server.kill();
      int granted = 0;
      for (int i = 0; i < 5; i++) {
        Decision d = i % 2 == 0 ? limiter.decide("down", 1) : decideAsync(limiter, "down");
        assertThat(d.limit()).isEqualTo(threePerMinute);
        granted += d.allowed() ? 1 : 0;
      }
      assertThat(granted).as("the same limit, counted in this process").isEqualTo(3);
    }
  }

  private static Decision decideAsync(RedisRateLimiter limiter, String id) {
    return limiter.decideAsync(id, 1).toCompletableFuture().join();
  }
}
