package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.RollingCounters;
import io.slidingwindow.testkit.FakeTicker;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Redis counters as {@link RollingCounters}, without a server: what they answer without a call,
 * and how they read the script's reply. Their behaviour on a real server is {@code CountersIT} and
 * the counters' conformance ITs of the Redis suite.
 */
class RedisCountersTest {

  @Test
  void asRollingCounters_sizeIntervalAndCleanUp_callNoServer() {
    ScriptedClient client = new ScriptedClient();
    RollingCounters<String> counters =
        RedisCounters.builder(client.backend()).size(30).interval(Duration.ofMillis(250)).build();
    assertThat(counters.size()).isEqualTo(30);
    assertThat(counters.interval()).isEqualTo(Duration.ofMillis(250));
    counters.cleanUp();
    assertThat(client.sent).isEmpty();

    RollingCounters<String> defaults = RedisCounters.builder(client.backend()).build();
    assertThat(defaults.size()).isEqualTo(60);
    assertThat(defaults.interval()).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void asRollingCounters_badArguments_throwIllegalArgumentExceptionBeforeAnyCall() {
    ScriptedClient client = new ScriptedClient();
    RollingCounters<String> counters = RedisCounters.builder(client.backend()).build();
    assertThatThrownBy(() -> counters.addAndGet("id", -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("amount must not be negative, was -1");
    assertThatThrownBy(() -> counters.addAndGet(null, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key");
    assertThatThrownBy(() -> counters.incrementAndGet(null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> counters.sum(null)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> counters.count(null)).isInstanceOf(IllegalArgumentException.class);
    assertThat(client.sent).isEmpty();
  }

  @Test
  void reply_sumInTwoParts_isExactAndSaturatesAtLongMaxValue() {
    ScriptedClient client =
        new ScriptedClient(
            List.of(0L, 7L, 1L, 0L),
            List.of(9_007_199L, 254_740_993L, 2L, 0L),
            List.of(9_223_372_036L, 854_775_807L, 3L, 0L),
            List.of(9_223_372_036L, 854_775_808L, 4L, 0L),
            List.of(10_000_000_000L, 0L, 5L, 0L));
    RollingCounters<String> counters = RedisCounters.builder(client.backend()).build();
    assertThat(counters.addAndGet("id", 7)).isEqualTo(7);
    assertThat(counters.sum("id")).isEqualTo((1L << 53) + 1);
    assertThat(counters.addAndGet("id", 1)).isEqualTo(Long.MAX_VALUE);
    assertThat(counters.sum("id")).isEqualTo(Long.MAX_VALUE);
    assertThat(counters.count("id")).isEqualTo(5);
  }

  @Test
  void keys_onClientTime_belongToOneCountersInstance() {
    ScriptedClient client = new ScriptedClient();
    RedisCounters server = RedisCounters.builder(client.backend()).keyPrefix("k").build();
    FakeTicker ticker = new FakeTicker();
    RedisCounters first =
        RedisCounters.builder(client.backend()).keyPrefix("k").clientTime(ticker).build();
    RedisCounters again =
        RedisCounters.builder(client.backend()).keyPrefix("k").clientTime(ticker).build();
    assertThat(server.keyOf("id")).isEqualTo(Keys.tagged("k", "id") + "c:60:1000000");
    assertThat(first.keyOf("id")).matches(".*c:60:1000000:[0-9a-f]+").isEqualTo(first.keyOf("id"));
    assertThat(again.keyOf("id"))
        .startsWith(server.keyOf("id") + ":")
        .isNotEqualTo(first.keyOf("id"));
    assertThat(client.sent).isEmpty();
  }
}
