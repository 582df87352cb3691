package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.FailurePolicy;
import io.slidingwindow.Limit;
import io.slidingwindow.testkit.redis.ClusterSlots;
import io.slidingwindow.testkit.redis.RedisClusterProcesses;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * For each client, on the shared Cluster: a slot half-way through a migration splits the keys of
 * one call between two nodes, so the source answers TRYAGAIN. The backend sends the call twice
 * more, then the failure policy answers; no exception escapes. Once the migration is finished (the
 * slot, with every key the other tests left in it, stays with its new owner), the call follows
 * MOVED to the new owner and is answered by Redis with the id's state intact.
 */
class TryAgainIT {

  private static String nodeId(RedisServerProcess node) {
    return node.cli("CLUSTER", "MYID");
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void keysSplitByAMigration_tryAgainRetriedTwiceThenPolicy_thenAnsweredByTheNewOwner(Client client)
      throws Exception {
    RedisClusterProcesses cluster = SharedCluster.cluster();
    Limit perMinute = Limit.of(5, Duration.ofMinutes(1));
    Limit perHour = Limit.of(50, Duration.ofHours(1));
    RedisRateLimiter limiter =
        RedisRateLimiter.builder(SharedCluster.backend(client))
            .keyPrefix("migrating-" + client)
            .limit(perMinute)
            .limit(perHour)
            .commandTimeout(Duration.ofSeconds(2))
            .circuitBreaker(100, Duration.ofSeconds(1))
            .failurePolicy(FailurePolicy.REFUSE)
            .build();
    String id = "migrating-" + client;
    List<String> keys = limiter.keysOf(id);
    int slot = ClusterSlots.slot(keys.get(0));
    RedisServerProcess source = ownerOf(cluster, slot);
    RedisServerProcess target =
        cluster.masters().stream().filter(m -> m != source).findFirst().orElseThrow();

    assertThat(limiter.tryAcquire(id, 2)).isTrue(); // both keys now exist on the source

    target.cli("CLUSTER", "SETSLOT", Integer.toString(slot), "IMPORTING", nodeId(source));
    source.cli("CLUSTER", "SETSLOT", Integer.toString(slot), "MIGRATING", nodeId(target));
    source.cli("MIGRATE", target.host(), Integer.toString(target.port()), keys.get(0), "0", "5000");
    long rejectedBefore = source.rejectedCalls("evalsha");

    // One key on each node: the source cannot run the call and says TRYAGAIN every time.
    long start = System.nanoTime();
    assertThat(limiter.tryAcquire(id, 1)).as("REFUSE answers").isFalse();
    assertThat(limiter.decide(id, 1).allowed()).isFalse();
    assertThat(limiter.tryAcquireAsync(id, 1).toCompletableFuture().get(10, TimeUnit.SECONDS))
        .isFalse();
    assertThat(System.nanoTime() - start)
        .as("answered without waiting for a timeout")
        .isLessThan(Duration.ofSeconds(2).toNanos());
    assertThat(source.rejectedCalls("evalsha") - rejectedBefore)
        .as("three calls, each sent three times (TRYAGAIN retried twice)")
        .isEqualTo(9);

    // Finish the migration: the call follows MOVED to the target and sees the 2 permits granted.
    for (String key :
        source.cli("CLUSTER", "GETKEYSINSLOT", Integer.toString(slot), "100000").lines().toList()) {
      source.cli("MIGRATE", target.host(), Integer.toString(target.port()), key, "0", "5000");
    }
    for (RedisServerProcess master : cluster.masters()) {
      master.cli("CLUSTER", "SETSLOT", Integer.toString(slot), "NODE", nodeId(target));
    }
    assertThat(limiter.decide(id, 3).allowed()).isTrue();
    assertThat(limiter.decide(id, 1).remaining()).as("2 + 3 + 1 > 5").isZero();
    assertThat(limiter.decide(id, 1).allowed()).isFalse();
  }

  /** The master that owns {@code slot}, from the masters' own views. */
  static RedisServerProcess ownerOf(RedisClusterProcesses cluster, int slot) {
    return cluster.masters().stream()
        .filter(master -> owns(master, slot))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no master owns slot " + slot));
  }

  /** Whether the slot ranges of the node's own line of CLUSTER NODES hold {@code slot}. */
  private static boolean owns(RedisServerProcess master, int slot) {
    String myself =
        master
            .cli("CLUSTER", "NODES")
            .lines()
            .filter(l -> l.contains("myself"))
            .findFirst()
            .orElseThrow();
    String[] fields = myself.trim().split(" ", -1);
    for (int i = 8; i < fields.length; i++) {
      if (fields[i].startsWith("[")) {
        continue; // a slot being migrated or imported
      }
      String[] ends = fields[i].split("-", -1);
      int from = Integer.parseInt(ends[0]);
      int to = ends.length > 1 ? Integer.parseInt(ends[1]) : from;
      if (slot >= from && slot <= to) {
        return true;
      }
    }
    return false;
  }
}
