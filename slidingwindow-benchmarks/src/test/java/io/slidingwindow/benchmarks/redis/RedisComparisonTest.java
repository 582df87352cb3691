package io.slidingwindow.benchmarks.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

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
}
