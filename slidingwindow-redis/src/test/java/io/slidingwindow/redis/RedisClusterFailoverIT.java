package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.cluster.SlotHash;
import io.slidingwindow.Limit;
import io.slidingwindow.testkit.redis.RedisClusterProcesses;
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
import org.junit.jupiter.api.Test;

/**
 * A Cluster master killed under load: the failure policy answers every call within the timeout,
 * nothing escapes, and the promoted replica serves the id's keys.
 */
class RedisClusterFailoverIT {

  /** What a call through a new client says: tells a stale client state from a broken cluster. */
  private static String freshBackendCall(RedisClusterProcesses cluster, String id) {
    try (RedisBackend fresh = RedisBackend.cluster(cluster.seedUris())) {
      RedisRateLimiter limiter =
          RedisRateLimiter.builder(fresh).limit(Limit.of(1_000_000_000, Duration.ofSeconds(1))).build();
      return "answered " + java.util.Arrays.toString(limiter.tryAcquireWithTime(id, 1));
    } catch (Exception e) {
      return "failed: " + e;
    }
  }

  @Test
  void masterKilledUnderLoad_policyAnswersNothingEscapesAndTheReplicaServesTheId() throws Exception {
    try (RedisClusterProcesses cluster = RedisClusterProcesses.start(3, 1);
        RedisBackend backend = RedisBackend.cluster(cluster.seedUris())) {
      RedisRateLimiter limiter =
          RedisRateLimiter.builder(backend)
              .limit(Limit.of(1_000_000_000, Duration.ofSeconds(1)))
              // Generous: this test is about recovering from a failover, and the machine running it
              // also runs six redis-server processes; a slow answer must not count as a failure.
              .commandTimeout(Duration.ofSeconds(1))
              .circuitBreaker(3, Duration.ofMillis(200))
              .failurePolicy(FailurePolicy.failClosed())
              .build();
      // An id whose keys live on the first master (slots from 0), which is the one killed.
      String id = null;
      for (int i = 0; id == null && i < 10_000; i++) {
        if (SlotHash.getSlot(limiter.keysOf("failover-" + i).get(0)) < 5000) {
          id = "failover-" + i;
        }
      }
      assertThat(id).isNotNull();
      String onKilledMaster = id;
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong answered = new AtomicLong();
      AtomicLong refused = new AtomicLong();
      Queue<Throwable> escaped = new ConcurrentLinkedQueue<>();
      ExecutorService pool = Executors.newFixedThreadPool(4);
      List<Future<?>> workers = new ArrayList<>();
      try {
        for (int t = 0; t < 4; t++) {
          workers.add(
              pool.submit(
                  () -> {
                    for (int i = 0; i < 5_000_000 && !stop.get(); i++) {
                      try {
                        (limiter.tryAcquire(onKilledMaster, 1) ? answered : refused).incrementAndGet();
                      } catch (Throwable e) {
                        escaped.add(e);
                      }
                    }
                  }));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> answered.get() > 200);
        cluster.killMaster(0);
        long refusedAtKill = refused.get();
        await().atMost(Duration.ofSeconds(30)).until(() -> refused.get() > refusedAtKill);
        RedisServerProcess promoted = cluster.awaitFailover();
        // The promoted replica serves the id: a backend connected now is answered by Redis, with a
        // server timestamp. Whether the backend that was connected through the failover follows it
        // on its own is not asserted here: with Lettuce 6.4.1 it does in some runs but not in all
        // (a known gap, see docs/redis.md, "Failures").
        await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(
                () -> assertThat(freshBackendCall(cluster, onKilledMaster)).startsWith("answered [1, "));
        assertThat(promoted.isAlive()).isTrue();
      } finally {
        stop.set(true);
        for (Future<?> worker : workers) {
          worker.get(10, TimeUnit.SECONDS);
        }
        pool.shutdownNow();
      }
      assertThat(escaped).as("exceptions that escaped the limiter").isEmpty();
    }
  }
}
