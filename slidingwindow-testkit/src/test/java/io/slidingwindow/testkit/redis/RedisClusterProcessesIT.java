package io.slidingwindow.testkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class RedisClusterProcessesIT {

  @Test
  void start_threeMastersOneReplicaEach_formsHealthyClusterAndServesKeysFromAnyNode() {
    List<Integer> ports;
    try (RedisClusterProcesses cluster = RedisClusterProcesses.start(3, 1)) {
      ports = cluster.nodes().stream().map(RedisServerProcess::port).toList();
      assertThat(cluster.seedUris()).hasSize(6).allMatch(u -> u.startsWith("redis://127.0.0.1:"));
      assertThat(cluster.masters()).hasSize(3);
      assertThat(cluster.replicas()).hasSize(3);
      for (RedisServerProcess node : cluster.nodes()) {
        assertThat(node.cli("CLUSTER", "INFO")).contains("cluster_state:ok", "cluster_size:3");
      }

      RedisServerProcess first = cluster.nodes().get(0);
      RedisServerProcess last = cluster.nodes().get(5);
      for (int i = 0; i < 10; i++) {
        assertThat(first.cli("-c", "SET", "key-" + i, "value-" + i)).isEqualTo("OK");
      }
      for (int i = 0; i < 10; i++) {
        assertThat(last.cli("-c", "GET", "key-" + i)).isEqualTo("value-" + i);
      }
      assertThat(first.cli("-c", "SET", "{user}:a", "1")).isEqualTo("OK");
      assertThat(last.cli("-c", "MGET", "{user}:a", "{user}:b")).isEqualTo("1");
      assertThatThrownBy(cluster::awaitFailover)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("killMaster");
    }
    assertThat(ports).allMatch(RedisTools::portIsFree);
  }

  @Test
  void killMaster_first_replicaIsPromotedAndServesItsSlots() {
    try (RedisClusterProcesses cluster = RedisClusterProcesses.start(3, 1)) {
      RedisServerProcess oldMaster = cluster.masters().get(0);
      String slotZeroKey = "{06S}"; // hash slot 0 is served by masters().get(0)
      assertThat(oldMaster.cli("CLUSTER", "KEYSLOT", slotZeroKey)).isEqualTo("0");
      assertThat(oldMaster.cli("SET", slotZeroKey, "kept")).isEqualTo("OK");
      assertThat(oldMaster.cli("WAIT", "1", "2000")).isEqualTo("1");
      // The replica must hold the key, with its link up, before the master dies: a replica that
      // started a new full sync after the WAIT would otherwise take over with an empty data set.
      RedisServerProcess replica =
          cluster.replicas().stream()
              .filter(r -> r.cli("INFO", "replication").contains("master_port:" + oldMaster.port()))
              .findFirst()
              .orElseThrow();
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> {
                assertThat(replica.cli("INFO", "replication")).contains("master_link_status:up");
                assertThat(replica.cli("DBSIZE")).isEqualTo("1");
              });

      RedisServerProcess killed = cluster.killMaster(0);
      RedisServerProcess promoted = cluster.awaitFailover();

      assertThat(killed).isSameAs(oldMaster);
      assertThat(killed.isAlive()).isFalse();
      assertThat(promoted).isNotSameAs(oldMaster).isSameAs(replica);
      assertThat(promoted.cli("ROLE").lines().findFirst()).hasValue("master");
      assertThat(cluster.masters()).hasSize(3).contains(promoted).doesNotContain(oldMaster);
      assertThat(promoted.cli("GET", slotZeroKey)).isEqualTo("kept");
      assertThat(promoted.cli("SET", slotZeroKey, "after")).isEqualTo("OK");

      killed.restart();
      await()
          .atMost(Duration.ofSeconds(15))
          .ignoreExceptions()
          .untilAsserted(() -> assertThat(killed.cli("ROLE")).startsWith("slave"));
    }
  }

  @Test
  void start_fewerThanThreeMasters_throwsNamingParameter() {
    assertThatThrownBy(() -> RedisClusterProcesses.start(2, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("masters")
        .hasMessageContaining("2");
  }
}
