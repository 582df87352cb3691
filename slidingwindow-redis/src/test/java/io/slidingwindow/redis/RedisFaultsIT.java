package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.testkit.CallerThreads;
import io.slidingwindow.testkit.FailingLimiter;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Faults under load against a redis-server of each test's own: killed, paused, scripts flushed. */
class RedisFaultsIT {

  private static final Limit GENEROUS = Limit.of(1_000_000_000, Duration.ofSeconds(1));
  private static final Duration BOUND = Duration.ofSeconds(30);

  private RedisServerProcess server;
  private RedisBackend backend;

  @BeforeEach
  void start() {
    server = RedisServerProcess.start();
    backend = RedisBackend.standalone(server.uri());
  }

  @AfterEach
  void stop() {
    try {
      backend.close();
    } finally {
      server.close();
    }
  }

  /**
   * Threads that call the limiter on an id of their own until stopped (or their bound passes),
   * alternating blocking and asynchronous calls, sorting the answers.
   */
  private static final class Load {
    final AtomicLong allowed = new AtomicLong();
    final AtomicLong refused = new AtomicLong();
    final CallerThreads threads;

    Load(RedisRateLimiter limiter, int count) {
      threads =
          CallerThreads.start(
              count,
              (t, i) -> {
                String id = "load-" + t;
                Decision decision =
                    i % 2 == 0
                        ? limiter.decide(id, 1)
                        : limiter.decideAsync(id, 1).toCompletableFuture().get();
                (decision.allowed() ? allowed : refused).incrementAndGet();
              });
    }

    long calls() {
      return threads.calls();
    }

    Queue<Throwable> escaped() {
      return threads.escaped();
    }

    void stop() {
      threads.stop();
    }

    @Override
    public String toString() {
      return allowed + " allowed, " + refused + " refused; " + threads;
    }
  }

  @Test
  void redisKilledUnderLoad_failClosedAnswersWithinTheTimeoutAndRedisAnswersAgainAfterRestart()
      throws Exception {
    RedisRateLimiter limiter =
        RedisRateLimiter.builder(backend)
            .limit(GENEROUS)
            .commandTimeout(Duration.ofMillis(50))
            .circuitBreaker(3, Duration.ofMillis(200))
            .failurePolicy(FailurePolicy.failClosed())
            .build();
    Load load = new Load(limiter, 4);
    try {
      await().atMost(BOUND).until(() -> load.allowed.get() > 500);
      server.kill();
      long refusedAtKill = load.refused.get();
      await().atMost(BOUND).until(() -> load.refused.get() > refusedAtKill + 500);
      assertThat(limiter.isBreakerOpen() || load.refused.get() > 0).isTrue();
      server.restart();
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
    assertThat(load.escaped()).as("exceptions that escaped the limiter").isEmpty();
    assertThat(load.threads.slowest())
        .as("slowest call; the command timeout is 50 ms")
        .isLessThan(Duration.ofSeconds(1));
  }

  @Test
  void scriptFlushUnderLoad_everyCallIsAnsweredByRedis() throws Exception {
    // Any call the failure policy had to answer would throw from this fallback and be recorded.
    RedisRateLimiter limiter =
        RedisRateLimiter.builder(backend)
            .limit(GENEROUS)
            .commandTimeout(Duration.ofSeconds(5))
            .failurePolicy(FailurePolicy.fallbackTo(new FailingLimiter()))
            .build();
    Load load = new Load(limiter, 4);
    try {
      for (int flush = 0; flush < 20; flush++) {
        long before = load.calls();
        await().atMost(BOUND).until(() -> load.calls() > before + 100);
        assertThat(server.cli("SCRIPT", "FLUSH")).isEqualTo("OK");
      }
    } finally {
      load.stop();
    }
    assertThat(load.escaped()).as("exceptions that escaped the limiter").isEmpty();
    assertThat(load.allowed.get()).isGreaterThan(2_000);
    assertThat(load.refused.get()).isZero();
  }

  @Test
  void pausedRedis_policiesAnswerWithinTheTimeout() {
    RedisRateLimiter open =
        RedisRateLimiter.builder(backend)
            .limit(GENEROUS)
            .commandTimeout(Duration.ofMillis(50))
            .build();
    RedisRateLimiter closed =
        RedisRateLimiter.builder(backend)
            .limit(GENEROUS)
            .commandTimeout(Duration.ofMillis(50))
            .failurePolicy(FailurePolicy.failClosed())
            .build();
    assertThat(closed.tryAcquire("paused", 1)).as("Redis answers before the pause").isTrue();
    server.cli("CLIENT", "PAUSE", "3000", "ALL");
    Decision openDecision =
        assertTimeoutPreemptively(Duration.ofSeconds(1), () -> open.decide("paused", 1));
    Decision closedDecision =
        assertTimeoutPreemptively(Duration.ofSeconds(1), () -> closed.decide("paused", 1));
    assertThat(openDecision.allowed()).isTrue();
    assertThat(openDecision.remaining()).isZero();
    assertThat(closedDecision.allowed()).isFalse();
    assertThat(closedDecision.retryAfter()).isPositive();
    server.cli("CLIENT", "UNPAUSE");
    await().atMost(BOUND).until(() -> closed.tryAcquire("paused", 1));
  }

  @Test
  void breakerOpen_callsDoNotReachRedisUntilTheOpenTimeHasPassedOnItsClock() {
    FakeTicker breakerClock = new FakeTicker();
    RedisRateLimiter limiter =
        RedisRateLimiter.builder(backend)
            .limit(GENEROUS)
            .commandTimeout(Duration.ofMillis(200))
            .circuitBreaker(3, Duration.ofSeconds(30))
            .breakerTicker(breakerClock)
            .failurePolicy(FailurePolicy.failClosed())
            .build();
    assertThat(limiter.tryAcquire("breaker", 1)).isTrue();
    server.kill();
    for (int i = 0; i < 3; i++) {
      assertThat(limiter.tryAcquire("breaker", 1))
          .as("failure %d, answered by the policy", i)
          .isFalse();
    }
    assertThat(limiter.isBreakerOpen()).isTrue();
    Decision whileOpen = limiter.decide("breaker", 1);
    assertThat(whileOpen.allowed()).isFalse();
    assertThat(whileOpen.retryAfter()).isEqualTo(Duration.ofSeconds(30));

    server.restart();
    // Another limiter on the same connection, with a breaker on the real clock, shows when the
    // connection is back, so that the probe below cannot fail for want of it.
    RedisRateLimiter other =
        RedisRateLimiter.builder(backend)
            .limit(GENEROUS)
            .failurePolicy(FailurePolicy.failClosed())
            .build();
    await().atMost(BOUND).until(() -> other.tryAcquire("other", 1));
    server.cli("CONFIG", "RESETSTAT");
    breakerClock.advance(Duration.ofSeconds(30).minusNanos(1));
    for (int i = 0; i < 20; i++) {
      assertThat(limiter.tryAcquire("breaker", 1)).as("still open, call %d", i).isFalse();
    }
    assertThat(server.cli("INFO", "commandstats"))
        .as("no call reached Redis")
        .doesNotContain("cmdstat_eval");
    breakerClock.advance(1);
    assertThat(limiter.tryAcquire("breaker", 1)).as("the probe, answered by Redis").isTrue();
    assertThat(limiter.isBreakerOpen()).isFalse();
    assertThat(server.cli("INFO", "commandstats")).contains("cmdstat_eval");
  }

  @Test
  void redisDown_fallbackLimiterDecides() {
    KeyedRateLimiter<String> local =
        KeyedRateLimiter.builder().limit(Limit.of(1, Duration.ofMinutes(1))).build();
    RedisRateLimiter limiter =
        RedisRateLimiter.builder(backend)
            .limit(Limit.of(100, Duration.ofMinutes(1)))
            .failurePolicy(FailurePolicy.fallbackTo(local))
            .commandTimeout(Duration.ofSeconds(2)) // a busy machine must not make Redis look down
            .build();
    assertThat(limiter.decide("down", 1).remaining()).as("from Redis").isEqualTo(99);
    server.kill();
    assertThat(limiter.tryAcquire("down", 1)).as("the local limiter's first permit").isTrue();
    Decision second = limiter.decide("down", 1);
    assertThat(second.allowed()).as("the local limiter's limit is 1").isFalse();
    assertThat(second.limit()).isEqualTo(Limit.of(1, Duration.ofMinutes(1)));
  }
}
