package io.slidingwindow.boot4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.LettuceVersion;
import io.slidingwindow.FailurePolicy;
import io.slidingwindow.Limit;
import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.redis.RedisRateLimiter;
import io.slidingwindow.redis.lettuce.LettuceBackends;
import io.slidingwindow.testkit.redis.RedisSentinelProcesses;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The Lettuce backend on Lettuce 7 after a Sentinel-managed master is demoted by hand ({@code
 * REPLICAOF}, Sentinel told of the new master by {@code SENTINEL REMOVE} and {@code MONITOR}; no
 * failover, so nothing closes the client's connection). Only the backend's drop of the channel on a
 * {@code READONLY} reply moves it: it unwraps the writers Lettuce puts around the connection's
 * {@code DefaultEndpoint}, whose classes are Lettuce's internals, so this fails if Lettuce 7 wraps
 * it otherwise. slidingwindow-redis-tests runs the same scenario on Lettuce 6
 * (SentinelDemotedMasterIT).
 */
class Lettuce7SentinelDemotedMasterIT {

  @Test
  void sentinel_masterDemotedByHand_callsReachTheNewMaster() {
    assertThat(LettuceVersion.getVersion()).startsWith("7.");
    Duration timeout = Duration.ofMillis(500);
    try (RedisSentinelProcesses group = RedisSentinelProcesses.start("demoted7", 1, 1);
        RedisBackend backend = LettuceBackends.sentinel(group.sentinelUris(), "demoted7")) {
      RedisRateLimiter limiter =
          RedisRateLimiter.builder(backend)
              .limit(Limit.of(3, Duration.ofMinutes(10)))
              .commandTimeout(timeout)
              .circuitBreaker(3, Duration.ofMillis(200))
              .failurePolicy(FailurePolicy.REFUSE)
              .build();
      assertThat(limiter.decide("demoted", 1).remaining()).isEqualTo(2);
      RedisServerProcess oldMaster = group.master();
      RedisServerProcess newMaster = group.replicas().get(0);
      assertThat(oldMaster.cli("WAIT", "1", "5000"))
          .as("replicas that have the grant")
          .isEqualTo("1");

      RedisServerProcess sentinel = group.sentinels().get(0);
      sentinel.cli("SENTINEL", "REMOVE", "demoted7");
      newMaster.cli("REPLICAOF", "NO", "ONE");
      oldMaster.cli("REPLICAOF", newMaster.host(), String.valueOf(newMaster.port()));
      sentinel.cli(
          "SENTINEL",
          "MONITOR",
          "demoted7",
          newMaster.host(),
          String.valueOf(newMaster.port()),
          "1");
      assertThat(oldMaster.cli("ROLE")).startsWith("slave");
      assertThat(limiter.decide("demoted", 1).allowed())
          .as("answered READONLY by the old master: the failure policy refuses")
          .isFalse();

      // REFUSE refuses while the calls fail; a grant is the new master answering. It holds the
      // grant made before the move (WAIT above), so it grants 2 more and no more.
      await().atMost(Duration.ofSeconds(10)).until(() -> limiter.decide("demoted", 1).allowed());
      assertThat(limiter.decide("demoted", 1).remaining()).isZero();
      assertThat(limiter.decide("demoted", 1).allowed()).isFalse();
      assertThat(oldMaster.cli("ROLE")).as("the old master is still a replica").startsWith("slave");
    }
  }
}
