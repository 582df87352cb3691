package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.resource.ClientResources;
import io.slidingwindow.Limit;
import io.slidingwindow.testkit.CallerThreads;
import io.slidingwindow.testkit.redis.RedisClusterProcesses;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A Cluster master killed under load: the failure policy answers every call within the timeout,
 * nothing escapes, the promoted replica serves the id's keys, and the backend that was connected
 * through the failover is answered by Redis again.
 */
class RedisClusterFailoverIT {

  /** What a call through {@code limiter}'s backend says, for failure messages. */
  private static String call(RedisRateLimiter limiter, String id) {
    try {
      return "answered " + java.util.Arrays.toString(limiter.tryAcquireWithTime(id, 1));
    } catch (Exception e) {
      return "failed: " + ScriptCalls.unwrap(e instanceof ExecutionException ? e.getCause() : e);
    }
  }

  /** An id whose keys live on the first master (slots from 0), which is the one killed. */
  private static String idOnFirstMaster(RedisRateLimiter limiter) {
    for (int i = 0; i < 10_000; i++) {
      if (SlotHash.getSlot(limiter.keysOf("failover-" + i).get(0)) < 5000) {
        return "failover-" + i;
      }
    }
    throw new AssertionError("no id with a slot below 5000");
  }

  /** What a call through a new client says: tells a stale client state from a broken cluster. */
  private static String freshBackendCall(RedisClusterProcesses cluster, String id) {
    try (RedisBackend fresh = RedisBackend.cluster(cluster.seedUris())) {
      RedisRateLimiter limiter =
          RedisRateLimiter.builder(fresh)
              .limit(Limit.of(1_000_000_000, Duration.ofSeconds(1)))
              .build();
      return "answered " + java.util.Arrays.toString(limiter.tryAcquireWithTime(id, 1));
    } catch (Exception e) {
      return "failed: " + e;
    }
  }

  @Test
  void masterKilledUnderLoad_policyAnswersNothingEscapesAndTheSameBackendRecovers()
      throws Exception {
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
      String onKilledMaster = idOnFirstMaster(limiter);
      AtomicLong answered = new AtomicLong();
      AtomicLong refused = new AtomicLong();
      try (CallerThreads load =
          CallerThreads.start(
              4,
              (t, i) ->
                  (limiter.tryAcquire(onKilledMaster, 1) ? answered : refused).incrementAndGet())) {
        await().atMost(Duration.ofSeconds(30)).until(() -> answered.get() > 200);
        cluster.killMaster(0);
        long refusedAtKill = refused.get();
        await().atMost(Duration.ofSeconds(30)).until(() -> refused.get() > refusedAtKill);
        RedisServerProcess promoted = cluster.awaitFailover();
        // The promoted replica serves the id: a backend connected now is answered by Redis, with a
        // server timestamp.
        await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(
                () ->
                    assertThat(freshBackendCall(cluster, onKilledMaster))
                        .startsWith("answered [1, "));
        assertThat(promoted.isAlive()).isTrue();
        // And so does the backend that was connected through the failover, while the workers keep
        // calling: a grant (the failure policy only refuses) comes from Redis.
        long answeredAtFailover = answered.get();
        await()
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(100))
            .untilAsserted(
                () ->
                    assertThat(limiter.decide(onKilledMaster, 1).allowed())
                        .as(
                            () ->
                                "the same backend granted again; a direct call "
                                    + call(limiter, onKilledMaster)
                                    + "; client topology "
                                    + backend.topology())
                        .isTrue());
        await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(
                () ->
                    assertThat(answered.get())
                        .as("grants to the load since the failover; load: %s", load)
                        .isGreaterThan(answeredAtFailover + 200));
        load.stop();
        assertThat(load.escaped()).as("exceptions that escaped the limiter").isEmpty();
      }
    }
  }

  /**
   * A caller's client with no topology refresh of its own (no period, no adaptive trigger): the
   * refresh that the backend starts after failed calls is all that moves the id's slot to the
   * promoted replica.
   */
  @Test
  void masterKilled_backendOverAClientWithoutRefreshFollowsTheFailover() throws Exception {
    try (RedisClusterProcesses cluster = RedisClusterProcesses.start(3, 1)) {
      ClientResources resources = ClientResources.create();
      RedisClusterClient client =
          RedisClusterClient.create(
              resources, cluster.seedUris().stream().map(RedisURI::create).toList());
      client.setOptions(
          ClusterClientOptions.builder()
              .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder().build())
              .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
              .timeoutOptions(TimeoutOptions.enabled(Duration.ofSeconds(2)))
              .build());
      try (RedisBackend backend = RedisBackend.of(client)) {
        RedisRateLimiter limiter =
            RedisRateLimiter.builder(backend)
                .limit(Limit.of(1_000_000_000, Duration.ofSeconds(1)))
                .commandTimeout(Duration.ofSeconds(1))
                .circuitBreaker(3, Duration.ofMillis(200))
                .failurePolicy(FailurePolicy.failClosed())
                .build();
        String onKilledMaster = idOnFirstMaster(limiter);
        assertThat(limiter.decide(onKilledMaster, 1).allowed()).isTrue();
        cluster.killMaster(0);
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> !limiter.decide(onKilledMaster, 1).allowed());
        cluster.awaitFailover();
        await()
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(100))
            .untilAsserted(
                () ->
                    assertThat(limiter.decide(onKilledMaster, 1).allowed())
                        .as(
                            () ->
                                "granted after the failover; a direct call "
                                    + call(limiter, onKilledMaster)
                                    + "; client topology "
                                    + backend.topology())
                        .isTrue());
      } finally {
        client.shutdown();
        var unused = resources.shutdown(); // completes in the background
      }
    }
  }
}
