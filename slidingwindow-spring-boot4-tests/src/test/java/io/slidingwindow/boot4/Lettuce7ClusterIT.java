package io.slidingwindow.boot4;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.LettuceVersion;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.slidingwindow.Limit;
import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.redis.RedisRateLimiter;
import io.slidingwindow.redis.lettuce.LettuceBackends;
import io.slidingwindow.testkit.FailingLimiter;
import io.slidingwindow.testkit.redis.RedisClusterProcesses;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * LettuceBackends' Cluster factories on Lettuce 7 and a real 3-master Redis Cluster (started once
 * for the class): {@link LettuceBackends#cluster} and {@link
 * LettuceBackends#of(RedisClusterClient)} grant up to the limit and then refuse, with two limits,
 * so two keys a call, which the script reaches only if they share a slot (Redis refuses a script
 * over keys of several slots with CROSSSLOT, and the failing fallback then fails the test), for ids
 * on every master.
 */
class Lettuce7ClusterIT {

  private static RedisClusterProcesses cluster;

  @BeforeAll
  static void startCluster() {
    cluster = RedisClusterProcesses.start(3, 0);
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void clusterFactory_grantsUpToTheLimitThenRefuses_onEveryMaster() {
    assertThat(LettuceVersion.getVersion()).startsWith("7.");
    try (RedisBackend backend = LettuceBackends.cluster(cluster.seedUris())) {
      assertThat(backend.toString()).contains("cluster");
      decidesOnEveryMaster(backend, "owned");
    }
  }

  @Test
  void callersClusterClient_grantsUpToTheLimitThenRefuses_andStaysOpen() {
    // A 5 s timeout, not Lettuce's 60 s: here (Lettuce 7.7, BlockHound installed) the first
    // topology load has met a node's handshake reply dropped as for an "abandoned connection",
    // and the connect then waited out the handshake's timeout.
    List<RedisURI> seeds =
        cluster.seedUris().stream()
            .map(
                uri ->
                    RedisURI.builder(RedisURI.create(uri))
                        .withTimeout(Duration.ofSeconds(5))
                        .build())
            .toList();
    RedisClusterClient client = RedisClusterClient.create(seeds);
    try {
      try (RedisBackend backend = LettuceBackends.of(client)) {
        decidesOnEveryMaster(backend, "callers");
      }
      try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
        assertThat(connection.sync().ping())
            .as("the caller's client after close")
            .isEqualTo("PONG");
      }
    } finally {
      client.shutdown();
    }
  }

  /**
   * 3 permits a minute and 5 an hour: for each of 30 ids, three calls granted, the fourth refused;
   * then every master holds some of the keys.
   */
  private static void decidesOnEveryMaster(RedisBackend backend, String prefix) {
    RedisRateLimiter limiter =
        RedisRateLimiter.builder(backend)
            .keyPrefix(prefix)
            .limit(Limit.of(3, Duration.ofMinutes(1)))
            .limit(Limit.of(5, Duration.ofHours(1)))
            .commandTimeout(Duration.ofSeconds(5))
            .fallback(new FailingLimiter())
            .build();
    for (int i = 0; i < 30; i++) {
      String id = "user-" + i;
      for (int call = 1; call <= 3; call++) {
        assertThat(limiter.decide(id, 1).allowed()).as("%s call %d", id, call).isTrue();
      }
      assertThat(limiter.decide(id, 1).allowed()).as("%s call 4", id).isFalse();
    }
    for (RedisServerProcess master : cluster.masters()) {
      assertThat(master.cli("KEYS", prefix + "*").lines().filter(l -> !l.isBlank()).count())
          .as("keys under %s on %s", prefix, master)
          .isPositive();
    }
  }
}
