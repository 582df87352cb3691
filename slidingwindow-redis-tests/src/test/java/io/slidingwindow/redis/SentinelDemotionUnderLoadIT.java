package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.slidingwindow.FailurePolicy;
import io.slidingwindow.Limit;
import io.slidingwindow.testkit.redis.RedisSentinelProcesses;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A Sentinel-managed master demoted by hand, as in {@link SentinelDemotedMasterIT}, while several
 * threads decide in a loop: more threads than a Jedis pool holds connections, so that some wait for
 * one while the backend replaces its client (Jedis) or drops its connection (Lettuce). Every call
 * decides or is answered by the failure policy, none waits past a bound, every thread ends, the
 * decisions resume on the new master, and the old master keeps none of the backend's connections.
 */
class SentinelDemotionUnderLoadIT {

  private static final int THREADS = 12;

  /** At most this many calls per thread (refused ones are paced to about one a millisecond). */
  private static final int CALLS_PER_THREAD = 50_000;

  /** The longest one call may take: the socket timeout, a wait for a pooled connection, a build. */
  private static final Duration CALL_BOUND = Duration.ofSeconds(5);

  @ParameterizedTest
  @EnumSource(Client.class)
  void masterDemotedWhileThreadsDecide_everyCallAnswersAndDecisionsResume(Client client)
      throws Exception {
    Duration timeout = Duration.ofMillis(500);
    ExecutorService threads = Executors.newFixedThreadPool(THREADS);
    AtomicBoolean stop = new AtomicBoolean();
    try (RedisSentinelProcesses group = RedisSentinelProcesses.start("loaded", 1, 1);
        RedisBackend backend = client.sentinel(group.sentinelUris(), "loaded", timeout)) {
      // Never refuses while Redis answers: a refusal is the failure policy's answer.
      RedisRateLimiter limiter =
          RedisRateLimiter.builder(backend)
              .limit(Limit.of(10_000_000, Duration.ofMinutes(10)))
              .commandTimeout(timeout)
              .circuitBreaker(3, Duration.ofMillis(200))
              .failurePolicy(FailurePolicy.REFUSE)
              .build();
      AtomicLong grants = new AtomicLong();
      AtomicLong policyAnswers = new AtomicLong();
      AtomicLong longestNanos = new AtomicLong();
      Queue<Throwable> escaped = new ConcurrentLinkedQueue<>();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
      List<Future<?>> running = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        String id = "thread-" + t;
        running.add(
            threads.submit(
                () -> {
                  for (int i = 0;
                      i < CALLS_PER_THREAD && !stop.get() && System.nanoTime() < deadline;
                      i++) {
                    long start = System.nanoTime();
                    try {
                      if (limiter.decide(id, 1).allowed()) {
                        grants.incrementAndGet();
                      } else {
                        policyAnswers.incrementAndGet();
                        // Paces the calls the open circuit answers at once, which would use up
                        // the bounded count before Redis is reached again.
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                      }
                    } catch (Throwable e) { // anything the failure policy did not answer
                      escaped.add(e);
                    }
                    longestNanos.accumulateAndGet(System.nanoTime() - start, Math::max);
                  }
                }));
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> grants.get() >= 100);

      RedisServerProcess oldMaster = group.master();
      RedisServerProcess newMaster = group.replicas().get(0);
      RedisServerProcess sentinel = group.sentinels().get(0);
      sentinel.cli("SENTINEL", "REMOVE", "loaded");
      newMaster.cli("REPLICAOF", "NO", "ONE");
      oldMaster.cli("REPLICAOF", newMaster.host(), String.valueOf(newMaster.port()));
      long grantsBeforeMove = grants.get();
      sentinel.cli(
          "SENTINEL", "MONITOR", "loaded", newMaster.host(), String.valueOf(newMaster.port()), "1");
      assertThat(oldMaster.cli("ROLE")).startsWith("slave");

      // The old master refuses every write: grants beyond the calls under way when it was demoted
      // are the new master's.
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> grants.get() - grantsBeforeMove >= 10L * THREADS);
      assertThat(newMaster.commandCalls("evalsha") + newMaster.commandCalls("eval"))
          .as("scripts run on the new master")
          .isPositive();
      stop.set(true);
      for (Future<?> thread : running) {
        thread.get(CALL_BOUND.toMillis() * 2, TimeUnit.MILLISECONDS); // throws if it is stuck
      }

      assertThat(escaped).as("exceptions that escaped the failure policy").isEmpty();
      assertThat(policyAnswers.get()).as("calls the failure policy answered").isPositive();
      assertThat(Duration.ofNanos(longestNanos.get()))
          .as("the longest call")
          .isLessThan(CALL_BOUND);
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () ->
                  assertThat(backendConnections(oldMaster))
                      .as("the backend's connections to the old master")
                      .isEmpty());
    } finally {
      // First, so that a failure above ends the loops at once and stays the failure reported.
      stop.set(true);
      threads.shutdownNow();
      if (!threads.awaitTermination(10, TimeUnit.SECONDS)) {
        throw new AssertionError("deciding threads still running 10 s after the test");
      }
    }
  }

  /**
   * The clients of {@code server} that are not Sentinel's (named), a replica's or the {@code
   * redis-cli} asking: the backend's.
   */
  private static List<String> backendConnections(RedisServerProcess server) {
    return Stream.of(server.cli("CLIENT", "LIST").split("\n"))
        .map(String::trim)
        .filter(line -> !line.isEmpty())
        .filter(line -> line.contains(" name= "))
        .filter(line -> line.contains(" flags=N "))
        .filter(line -> !line.contains(" cmd=client|list "))
        .toList();
  }
}
