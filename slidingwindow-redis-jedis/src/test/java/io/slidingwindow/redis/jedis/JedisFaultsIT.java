package io.slidingwindow.redis.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.redis.FailurePolicy;
import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.redis.RedisRateLimiter;
import io.slidingwindow.testkit.CallerThreads;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * As the Lettuce module's fault tests, over Jedis, against a redis-server of each test's own:
 * killed under load and restarted, and down while a local limiter stands in.
 */
class JedisFaultsIT {

  /** The client's socket timeout and the limiters' command timeout. */
  private static final Duration TIMEOUT = Duration.ofSeconds(1);

  /** Generous: the machine running this also runs other builds. */
  private static final Duration BOUND = Duration.ofSeconds(60);

  private RedisServerProcess server;
  private RedisBackend backend;

  @BeforeEach
  void start() {
    server = RedisServerProcess.start();
    backend = JedisBackends.standalone(server.uri(), TIMEOUT);
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
   * Threads that call the limiter on one id until stopped, sorting the answers: grants, refusals by
   * Redis (whose retry-after is about the hour-long window), refusals by the failure policy (whose
   * retry-after is at most the breaker's open time), and exceptions that escaped.
   */
  private static final class Load {
    final AtomicLong allowed = new AtomicLong();
    final AtomicLong refusedByRedis = new AtomicLong();
    final AtomicLong refusedByPolicy = new AtomicLong();
    final CallerThreads threads;

    Load(RedisRateLimiter limiter, String id, int count) {
      threads =
          CallerThreads.start(
              count,
              (t, i) -> {
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

    /** Stops the threads and waits for them. */
    void stop() {
      threads.stop();
    }
  }

  /**
   * Four threads on one id whose limit is 500 an hour. Redis grants exactly 500 and then refuses;
   * killed, it is answered for by fail-closed, which grants nothing, within the timeout; restarted
   * (empty: its data is not kept), it grants exactly 500 more and refuses again. Any grant beyond
   * those 2 * 500 would have escaped the limit.
   */
  @Test
  void redisKilledUnderLoad_failClosedAnswersInTime_noGrantBeyondTheLimit_redisAnswersAfterRestart()
      throws Exception {
    int limit = 500;
    RedisRateLimiter limiter =
        RedisRateLimiter.builder(backend)
            .limit(Limit.of(limit, Duration.ofHours(1)))
            .commandTimeout(TIMEOUT)
            .circuitBreaker(3, Duration.ofMillis(200))
            .refusalCache(0) // every refusal comes from Redis, also after the restart
            .failurePolicy(FailurePolicy.failClosed())
            .build();
    Load load = new Load(limiter, "killed", 4);
    try {
      // A refusal on one thread can be counted before the last grant on another is: wait for both.
      // A grant beyond the limit never lets this pass.
      await()
          .atMost(BOUND)
          .untilAsserted(
              () -> {
                assertThat(load.refusedByRedis).hasPositiveValue();
                assertThat(load.allowed).as("grants before the kill; %s", load).hasValue(limit);
              });

      server.kill();
      Duration slowestBeforeKill = load.threads.resetSlowest();
      long policyAtKill = load.refusedByPolicy.get();
      long callsAtKill = load.calls();
      await().atMost(BOUND).until(() -> load.calls() > callsAtKill + 500);
      assertThat(load.allowed).as("grants while Redis is down; %s", load).hasValue(limit);
      assertThat(load.refusedByPolicy.get())
          .as("refusals by fail-closed; %s", load)
          .isGreaterThan(policyAtKill);
      assertThat(load.threads.slowest())
          .as(
              "slowest call while Redis is down; the timeout is %s (before: %s)",
              TIMEOUT, slowestBeforeKill)
          .isLessThan(TIMEOUT.multipliedBy(5));

      server.restart();
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
    assertThat(load.allowed)
        .as("exactly the limit before the kill and again after the restart; %s", load)
        .hasValue(2L * limit);
  }

  /** Two threads and a local limiter of 1 a minute: Redis's figures first, then the local ones. */
  @Test
  void redisDown_fallbackLimiterDecides() throws Exception {
    KeyedRateLimiter<String> local =
        KeyedRateLimiter.builder().limit(Limit.of(1, Duration.ofMinutes(1))).build();
    RedisRateLimiter limiter =
        RedisRateLimiter.builder(backend)
            .limit(Limit.of(100, Duration.ofMinutes(1)))
            .commandTimeout(TIMEOUT)
            .failurePolicy(FailurePolicy.fallbackTo(local))
            .build();
    assertThat(limiter.decide("down", 1).remaining()).as("from Redis").isEqualTo(99);
    server.kill();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<Decision>> decisions = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        decisions.add(pool.submit(() -> limiter.decide("down", 1)));
      }
      int granted = 0;
      for (Future<Decision> decision : decisions) {
        Decision answer = decision.get(30, TimeUnit.SECONDS);
        assertThat(answer.limit())
            .as("decided locally")
            .isEqualTo(Limit.of(1, Duration.ofMinutes(1)));
        granted += answer.allowed() ? 1 : 0;
      }
      assertThat(granted).as("the local limiter's limit is 1").isEqualTo(1);
    } finally {
      pool.shutdownNow();
    }
    server.restart();
    await()
        .atMost(BOUND)
        .untilAsserted(
            () ->
                assertThat(limiter.decide("down", 1).remaining())
                    .as("from Redis, restarted empty")
                    .isEqualTo(99));
  }
}
