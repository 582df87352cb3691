package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.resource.ClientResources;
import io.slidingwindow.FailurePolicy;
import io.slidingwindow.Limit;
import io.slidingwindow.redis.lettuce.LettuceBackends;
import io.slidingwindow.testkit.CallerThreads;
import io.slidingwindow.testkit.redis.ClusterSlots;
import io.slidingwindow.testkit.redis.RedisClusterProcesses;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A Cluster master killed under load, on a Cluster of each test's own: the failure policy answers
 * every call, nothing escapes, the promoted replica serves the id's keys, and the backend that was
 * connected through the failover is answered by Redis again, through the topology refreshes that
 * its failed calls start.
 */
class ClusterFailoverIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(1);
  private static final Limit GENEROUS = Limit.of(1_000_000_000, Duration.ofSeconds(1));
  private static final Duration BOUND = Duration.ofSeconds(30);

  /** What a call through {@code limiter}'s backend says, for failure messages. */
  private static String call(RedisRateLimiter limiter, String id) {
    try {
      return "answered " + Arrays.toString(limiter.tryAcquireWithTime(id, 1));
    } catch (Exception e) {
      return "failed: " + ScriptCalls.unwrap(e instanceof ExecutionException ? e.getCause() : e);
    }
  }

  /** An id whose keys live on the first master (slots from 0), which is the one killed. */
  private static String idOnFirstMaster(RedisRateLimiter limiter) {
    for (int i = 0; i < 10_000; i++) {
      if (ClusterSlots.slot(limiter.keysOf("failover-" + i).get(0)) < 5000) {
        return "failover-" + i;
      }
    }
    throw new AssertionError("no id with a slot below 5000");
  }

  private static RedisRateLimiter refusing(RedisBackend backend) {
    return RedisRateLimiter.builder(backend)
        .limit(GENEROUS)
        // Generous: this test is about recovering from a failover, and the machine running it also
        // runs six redis-server processes; a slow answer must not count as a failure.
        .commandTimeout(TIMEOUT)
        .circuitBreaker(3, Duration.ofMillis(200))
        .failurePolicy(FailurePolicy.REFUSE)
        .build();
  }

  /** What a call through a new backend says: tells a stale client from a broken cluster. */
  private static String freshBackendCall(Client client, RedisClusterProcesses cluster, String id) {
    try (RedisBackend fresh = client.cluster(cluster.seedUris(), TIMEOUT)) {
      return call(refusing(fresh), id);
    } catch (RuntimeException e) {
      return "failed: " + e;
    }
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void masterKilledUnderLoad_policyAnswersNothingEscapesAndTheSameBackendRecovers(Client client)
      throws Exception {
    try (RedisClusterProcesses cluster = RedisClusterProcesses.start(3, 1);
        RedisBackend backend = client.cluster(cluster.seedUris(), TIMEOUT)) {
      RedisRateLimiter limiter = refusing(backend);
      String onKilledMaster = idOnFirstMaster(limiter);
      AtomicLong granted = new AtomicLong();
      AtomicLong refused = new AtomicLong();
      try (CallerThreads load =
          CallerThreads.start(
              4,
              (t, i) ->
                  (limiter.tryAcquire(onKilledMaster, 1) ? granted : refused).incrementAndGet())) {
        await().atMost(BOUND).until(() -> granted.get() > 200);
        cluster.killMaster(0);
        long refusedAtKill = refused.get();
        await().atMost(BOUND).until(() -> refused.get() > refusedAtKill + 20);
        RedisServerProcess promoted = cluster.awaitFailover();
        // The promoted replica serves the id: a backend connected now is answered by Redis, with a
        // server timestamp.
        await()
            .atMost(BOUND)
            .untilAsserted(
                () ->
                    assertThat(freshBackendCall(client, cluster, onKilledMaster))
                        .startsWith("answered [1, "));
        assertThat(promoted.isAlive()).isTrue();
        // And so is the backend that was connected through the failover, while the workers keep
        // calling: a grant (REFUSE only refuses) comes from Redis.
        long grantedAtFailover = granted.get();
        await()
            .atMost(BOUND)
            .pollInterval(Duration.ofMillis(100))
            .untilAsserted(
                () ->
                    assertThat(limiter.decide(onKilledMaster, 1).allowed())
                        .as(
                            () ->
                                "the same backend granted again; a direct call "
                                    + call(limiter, onKilledMaster)
                                    + "; client "
                                    + backend.client())
                        .isTrue());
        await()
            .atMost(BOUND)
            .untilAsserted(
                () ->
                    assertThat(granted.get())
                        .as("grants to the load since the failover; load: %s", load)
                        .isGreaterThan(grantedAtFailover + 200));
        load.stop();
        assertThat(load.escaped()).as("exceptions that escaped the limiter").isEmpty();
        assertThat(load.slowest())
            .as("slowest call; the timeout is %s", TIMEOUT)
            .isLessThan(TIMEOUT.multipliedBy(10));
      }
    }
  }

  /**
   * A caller's Lettuce client with no topology refresh of its own (no period, no adaptive trigger):
   * the refresh that the backend starts after failed calls is all that moves the id's slot to the
   * promoted replica. Lettuce only: Jedis's cluster clients read the slot map again by themselves
   * on every connection failure, so a caller's Jedis client has no such gap to close.
   */
  @Test
  void masterKilled_lettuceBackendOverAClientWithoutRefreshFollowsTheFailover() throws Exception {
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
      try (RedisBackend backend = LettuceBackends.of(client)) {
        RedisRateLimiter limiter = refusing(backend);
        String onKilledMaster = idOnFirstMaster(limiter);
        assertThat(limiter.decide(onKilledMaster, 1).allowed()).isTrue();
        cluster.killMaster(0);
        await().atMost(BOUND).until(() -> !limiter.decide(onKilledMaster, 1).allowed());
        cluster.awaitFailover();
        await()
            .atMost(BOUND)
            .pollInterval(Duration.ofMillis(100))
            .untilAsserted(
                () ->
                    assertThat(limiter.decide(onKilledMaster, 1).allowed())
                        .as(
                            () ->
                                "granted after the failover; a direct call "
                                    + call(limiter, onKilledMaster)
                                    + "; client "
                                    + backend.client())
                        .isTrue());
      } finally {
        client.shutdown();
        var unused = resources.shutdown(); // completes in the background
      }
    }
  }
}
