package io.slidingwindow.redis.jedis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.slidingwindow.Decision;
import io.slidingwindow.Limit;
import io.slidingwindow.redis.FailurePolicy;
import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.redis.RedisRateLimiter;
import io.slidingwindow.testkit.CallerThreads;
import io.slidingwindow.testkit.redis.RedisClusterProcesses;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * As the Lettuce module's test, over {@link JedisBackends#cluster}: a Cluster master killed under
 * load. The failure policy answers every call, nothing escapes, and the backend that was connected
 * through the failover is granted by Redis again, through the slot-map refreshes that its failed
 * calls start (Jedis's cluster client has no periodic refresh of its own).
 */
class JedisClusterFailoverIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(1);
  private static final Limit GENEROUS = Limit.of(1_000_000_000, Duration.ofSeconds(1));

  /** An id whose key lives on the first master (slots from 0), which is the one killed. */
  private static String idOnFirstMaster() {
    for (int i = 0; i < 10_000; i++) {
      String id = "failover-" + i;
      String encoded = Base64.getUrlEncoder().withoutPadding().encodeToString(id.getBytes(UTF_8));
      if (JedisClusterCRC16.getSlot("{u" + encoded + "}") < 5000) {
        return id;
      }
    }
    throw new AssertionError("no id with a slot below 5000");
  }

  /** What a new backend says for {@code id}: tells a stale client from a broken cluster. */
  private static String freshBackendCall(RedisClusterProcesses cluster, String id) {
    try (RedisBackend fresh = JedisBackends.cluster(cluster.seedUris(), TIMEOUT)) {
      RedisRateLimiter limiter =
          RedisRateLimiter.builder(fresh)
              .limit(GENEROUS)
              .commandTimeout(TIMEOUT)
              .failurePolicy(FailurePolicy.failClosed())
              .build();
      return "granted " + limiter.decide(id, 1).allowed();
    } catch (RuntimeException e) {
      return "failed: " + e;
    }
  }

  @Test
  void masterKilledUnderLoad_policyAnswersNothingEscapesAndTheSameBackendRecovers()
      throws Exception {
    try (RedisClusterProcesses cluster = RedisClusterProcesses.start(3, 1);
        RedisBackend backend = JedisBackends.cluster(cluster.seedUris(), TIMEOUT)) {
      RedisRateLimiter limiter =
          RedisRateLimiter.builder(backend)
              .limit(GENEROUS)
              // Generous: this test is about recovering from a failover on a machine that also
              // runs six redis-server processes; a slow answer must not count as a failure.
              .commandTimeout(TIMEOUT)
              .circuitBreaker(3, Duration.ofMillis(200))
              .failurePolicy(FailurePolicy.failClosed())
              .build();
      String onKilledMaster = idOnFirstMaster();
      AtomicLong granted = new AtomicLong();
      AtomicLong refused = new AtomicLong();
      try (CallerThreads load =
          CallerThreads.start(
              4,
              (t, i) ->
                  (limiter.tryAcquire(onKilledMaster, 1) ? granted : refused).incrementAndGet())) {
        await().atMost(Duration.ofSeconds(30)).until(() -> granted.get() > 200);
        cluster.killMaster(0);
        long refusedAtKill = refused.get();
        await().atMost(Duration.ofSeconds(30)).until(() -> refused.get() > refusedAtKill + 20);
        RedisServerProcess promoted = cluster.awaitFailover();
        // The promoted replica serves the id: a backend connected now is granted by Redis.
        await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(
                () ->
                    assertThat(freshBackendCall(cluster, onKilledMaster))
                        .isEqualTo("granted true"));
        assertThat(promoted.isAlive()).isTrue();
        // And so is the backend that was connected through the failover, while the workers keep
        // calling: a grant (fail-closed only refuses) comes from Redis.
        long grantedAtFailover = granted.get();
        await()
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(100))
            .untilAsserted(
                () -> {
                  Decision decision = limiter.decide(onKilledMaster, 1);
                  assertThat(decision.allowed())
                      .as("the same backend granted again: %s", decision)
                      .isTrue();
                });
        await()
            .atMost(Duration.ofSeconds(30))
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
}
