package io.slidingwindow.boot4;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.LettuceVersion;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.resource.ClientResources;
import io.slidingwindow.Limit;
import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.redis.RedisRateLimiter;
import io.slidingwindow.redis.lettuce.LettuceBackends;
import io.slidingwindow.testkit.FailingLimiter;
import io.slidingwindow.testkit.redis.ClusterSlots;
import io.slidingwindow.testkit.redis.RedisClusterProcesses;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/**
 * A Cluster master fails over on Lettuce 7, where a command for a node whose connection is still
 * being opened is rejected at once under {@code REJECT_COMMANDS}: once the client's view names the
 * promoted replica, the first calls for its slots are answered by Redis, not by the failure policy
 * (a {@link FailingLimiter} here, which fails the test).
 *
 * <p>The caller's client has no topology refresh of its own, and the test refreshes it once after
 * the failover, with no call in between: so the call that follows is the first routed to the
 * promoted replica, which no connection of the client reaches yet (the connections the refresh
 * opens are its own).
 */
class Lettuce7ClusterFailoverIT {

  /** Generous: every call is granted when Redis answers it. */
  private static final Limit GENEROUS = Limit.of(1_000_000, Duration.ofMinutes(1));

  @Test
  void afterAFailover_theFirstCallsForThePromotedMastersSlotsAreDecided() {
    assertThat(LettuceVersion.getVersion()).startsWith("7.");
    try (RedisClusterProcesses cluster = RedisClusterProcesses.start(3, 1)) {
      ClientResources resources = ClientResources.create();
      // A 5 s timeout, not Lettuce's 60 s, as in Lettuce7ClusterIT: a node's handshake reply
      // dropped as for an "abandoned connection" (met here too) then costs 5 s, not a minute.
      RedisClusterClient client =
          RedisClusterClient.create(
              resources,
              cluster.seedUris().stream()
                  .map(
                      uri ->
                          RedisURI.builder(RedisURI.create(uri))
                              .withTimeout(Duration.ofSeconds(5))
                              .build())
                  .toList());
      client.setOptions(
          ClusterClientOptions.builder()
              .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder().build())
              .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
              .timeoutOptions(TimeoutOptions.enabled(Duration.ofSeconds(5)))
              .build());
      try (RedisBackend backend = LettuceBackends.of(client)) {
        RedisRateLimiter limiter =
            RedisRateLimiter.builder(backend)
                .keyPrefix("failover")
                .limit(GENEROUS)
                .commandTimeout(Duration.ofSeconds(5))
                .fallback(new FailingLimiter())
                .build();
        String id = idOnFirstMaster();
        int slot = slotOf(id);
        assertThat(limiter.decide(id, 1).allowed()).as("before the failover").isTrue();
        assertThat(cluster.masters().get(0).cli("KEYS", "failover*"))
            .as("keys on the first master")
            .isNotBlank();

        cluster.killMaster(0);
        RedisServerProcess promoted = cluster.awaitFailover();
        client.refreshPartitions();
        assertThat(client.getPartitions().getMasterBySlot(slot).getUri().getPort())
            .as("the client's master for slot %d", slot)
            .isEqualTo(promoted.port());

        for (int call = 1; call <= 3; call++) {
          assertThat(limiter.decide(id, 1).allowed())
              .as("call %d after the failover, on %s", call, promoted)
              .isTrue();
        }
        assertThat(promoted.cli("KEYS", "failover*"))
            .as("keys on the promoted master")
            .isNotBlank();
      } finally {
        client.shutdown();
        var unused = resources.shutdown(); // completes in the background
      }
    }
  }

  /** An id whose keys live on the first master (slots from 0), which is the one killed. */
  private static String idOnFirstMaster() {
    for (int i = 0; i < 10_000; i++) {
      if (slotOf("failover-" + i) < 5000) {
        return "failover-" + i;
      }
    }
    throw new AssertionError("no id with a slot below 5000");
  }

  /**
   * The slot of {@code id}'s keys: their hash tag is {@code u} and the id's UTF-8 bytes in URL-safe
   * Base64 without padding (the library's key layout; the test checks the keys land where this
   * says).
   */
  private static int slotOf(String id) {
    return ClusterSlots.slot(
        "{u"
            + Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString(id.getBytes(StandardCharsets.UTF_8))
            + "}");
  }
}
