package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.slidingwindow.testkit.LogCapture;
import io.slidingwindow.testkit.redis.RedisSentinelProcesses;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.time.Duration;
import java.util.logging.Level;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A Sentinel-managed master demoted by hand ({@code REPLICAOF}, as an operator or a tool other than
 * Sentinel does it), with Sentinel told of the new master by {@code SENTINEL REMOVE} and {@code
 * MONITOR}: no failover, so no {@code CLIENT KILL} and no {@code +switch-master}. The client's
 * connection to the old master stays open and every script call is answered {@code READONLY}; the
 * Lettuce backend drops that connection, and Lettuce reconnects through Sentinel to the new master;
 * the Jedis backend builds its client again (Jedis's Sentinel client moves its pool only on {@code
 * +switch-master}), which asks Sentinel for the master. The backend says so in a warning, not in
 * the error that tells a limiter pointed at a replica to point it at the master.
 */
class SentinelDemotedMasterIT {

  @ParameterizedTest
  @EnumSource(Client.class)
  void sentinel_masterDemotedByHand_callsReachTheNewMaster(Client client) {
    Duration timeout = Duration.ofMillis(500);
    try (LogCapture logged = LogCapture.atConfiguredLevel("io.slidingwindow.redis");
        RedisSentinelProcesses group = RedisSentinelProcesses.start("demoted", 1, 1);
        RedisBackend backend = client.sentinel(group.sentinelUris(), "demoted", timeout)) {
      RedisRateLimiter limiter = SentinelLimiters.threeInTenMinutes(backend, timeout);
      assertThat(limiter.decide("demoted", 1).remaining()).isEqualTo(2);
      RedisServerProcess oldMaster = group.master();
      RedisServerProcess newMaster = group.replicas().get(0);
      assertThat(oldMaster.cli("WAIT", "1", "5000"))
          .as("replicas that have the grant")
          .isEqualTo("1");

      RedisServerProcess sentinel = group.sentinels().get(0);
      sentinel.cli("SENTINEL", "REMOVE", "demoted");
      newMaster.cli("REPLICAOF", "NO", "ONE");
      oldMaster.cli("REPLICAOF", newMaster.host(), String.valueOf(newMaster.port()));
      sentinel.cli(
          "SENTINEL",
          "MONITOR",
          "demoted",
          newMaster.host(),
          String.valueOf(newMaster.port()),
          "1");
      assertThat(oldMaster.cli("ROLE")).startsWith("slave");
      assertThat(sentinel.cli("SENTINEL", "get-master-addr-by-name", "demoted"))
          .contains(String.valueOf(newMaster.port()));

      // REFUSE refuses while the calls fail; a grant is the new master answering. It holds the
      // grant made before the move (WAIT above), so it grants 2 more and no more.
      await().atMost(Duration.ofSeconds(10)).until(() -> limiter.decide("demoted", 1).allowed());
      assertThat(limiter.decide("demoted", 1).remaining()).isZero();
      assertThat(limiter.decide("demoted", 1).allowed()).isFalse();
      assertThat(oldMaster.cli("ROLE")).as("the old master is still a replica").startsWith("slave");

      // Not the advice to point the limiter at the master, which it is: it says what happens.
      assertThat(logged.messages(Level.SEVERE)).isEmpty();
      assertThat(logged.messages(Level.WARNING))
          .singleElement()
          .asString()
          .contains("READONLY")
          .contains("demoted")
          .contains("asks Sentinel for the master again")
          .doesNotContain(RedisProblem.READ_ONLY_REPLICA.explanation());
    }
  }
}
