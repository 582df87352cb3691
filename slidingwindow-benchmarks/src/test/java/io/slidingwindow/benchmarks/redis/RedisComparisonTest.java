package io.slidingwindow.benchmarks.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RedisComparisonTest {

  @Test
  void commandStats_infoSection_readsCallsAndUsecPerCommand() {
    String info =
        "# Commandstats\r\n"
            + "cmdstat_evalsha:calls=120,usec=900,usec_per_call=7.50,rejected_calls=0,"
            + "failed_calls=0\r\n"
            + "cmdstat_get:calls=3,usec=1,usec_per_call=0.33,rejected_calls=0,failed_calls=0\r\n";

    Map<String, long[]> stats = RedisComparison.commandStats(info);

    assertThat(stats).containsOnlyKeys("evalsha", "get");
    assertThat(stats.get("evalsha")).containsExactly(120, 900);
    assertThat(stats.get("get")).containsExactly(3, 1);
  }

  @Test
  void selectContenders_slidingwindowAndBucket4j_picksBothOverLettuceAndOverJedisInTableOrder() {
    assertThat(RedisComparison.selectContenders("slidingwindow,Bucket4j"))
        .containsExactly(
            Contenders.OURS,
            Contenders.OURS_ASYNC,
            Contenders.OURS_NO_CACHE,
            Contenders.OURS_JEDIS,
            Contenders.BUCKET4J,
            Contenders.BUCKET4J_JEDIS);
  }

  @Test
  void selectContenders_moduleNames_picksOnlyTheJedisPair() {
    assertThat(RedisComparison.selectContenders("slidingwindow-redis-jedis,Bucket4j-Jedis"))
        .containsExactly(Contenders.OURS_JEDIS, Contenders.BUCKET4J_JEDIS);
  }

  @Test
  void selectContenders_empty_picksEveryContender() {
    assertThat(RedisComparison.selectContenders("")).isEqualTo(Contenders.NAMES);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "redis://localhost:6399",
        "redis://10.0.0.7:6379",
        "redis://127.0.0.1:6399/1",
        "rediss://127.0.0.1:6399",
        "redis://127.0.0.1:6399@10.0.0.7:6379"
      })
  void main_uriOtherThanLoopbackPort_isRefusedBeforeConnecting(String uri) {
    assertThatThrownBy(() -> RedisComparison.main(new String[] {uri}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(uri);
  }
}
