package io.slidingwindow.testkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RedisSentinelProcessesIT {

  @Test
  void killMaster_groupInPlace_sentinelsPromoteReplicaThatKeepsData() {
    List<Integer> ports = new ArrayList<>();
    try (RedisSentinelProcesses group = RedisSentinelProcesses.start("mymaster", 2, 3)) {
      group.servers().forEach(s -> ports.add(s.port()));
      group.sentinels().forEach(s -> ports.add(s.port()));
      assertThat(group.masterName()).isEqualTo("mymaster");
      assertThat(group.sentinelUris()).hasSize(3).allMatch(u -> u.startsWith("redis://127.0.0.1:"));
      RedisServerProcess oldMaster = group.master();
      assertThat(oldMaster).isSameAs(group.servers().get(0));
      assertThat(group.replicas()).hasSize(2);
      assertThat(oldMaster.cli("ROLE")).startsWith("master");
      for (RedisServerProcess replica : group.replicas()) {
        assertThat(replica.cli("ROLE")).startsWith("slave");
      }
      for (RedisServerProcess sentinel : group.sentinels()) {
        assertThat(sentinel.cli("SENTINEL", "get-master-addr-by-name", "mymaster"))
            .isEqualTo("127.0.0.1\n" + oldMaster.port());
      }
      assertThatThrownBy(group::awaitFailover).isInstanceOf(IllegalStateException.class);

      assertThat(oldMaster.cli("SET", "survivor", "yes")).isEqualTo("OK");
      assertThat(oldMaster.cli("WAIT", "2", "2000")).isEqualTo("2");

      RedisServerProcess killed = group.killMaster();
      RedisServerProcess promoted = group.awaitFailover();

      assertThat(killed).isSameAs(oldMaster);
      assertThat(killed.isAlive()).isFalse();
      assertThat(promoted).isNotSameAs(oldMaster);
      assertThat(promoted.cli("ROLE")).startsWith("master");
      assertThat(promoted.cli("GET", "survivor")).isEqualTo("yes");
      assertThat(promoted.cli("SET", "after", "failover")).isEqualTo("OK");
      assertThat(group.master()).isSameAs(promoted);
      assertThat(group.replicas()).hasSize(1).doesNotContain(promoted, killed);

      killed.restart();
      await()
          .atMost(Duration.ofSeconds(20))
          .ignoreExceptions()
          .untilAsserted(() -> assertThat(killed.cli("ROLE")).startsWith("slave"));
    }
    assertThat(ports).hasSize(6).allMatch(RedisTools::portIsFree);
  }

  @Test
  void start_badParameters_throwNamingThem() {
    assertThatThrownBy(() -> RedisSentinelProcesses.start("my master", 2, 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("masterName")
        .hasMessageContaining("my master");
    assertThatThrownBy(() -> RedisSentinelProcesses.start("mymaster", -1, 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("replicas")
        .hasMessageContaining("-1");
    assertThatThrownBy(() -> RedisSentinelProcesses.start("mymaster", 2, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sentinels")
        .hasMessageContaining("0");
  }
}
