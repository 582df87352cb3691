package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.RollingCounters;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The Redis counters on the server's clock, on the shared server. Their schedules against the
 * brute-force model, on a fake clock and through {@link RollingCounters}, are {@code
 * LettuceCountersConformanceIT} and {@code JedisCountersConformanceIT}.
 */
class CountersIT {

  @ParameterizedTest
  @EnumSource(Client.class)
  void counters_serverTime_expireAfterTheSpanAndKeepIdsApart(Client client) {
    RedisCounters counters =
        RedisCounters.builder(SharedRedis.backend(client))
            .size(10)
            .interval(Duration.ofSeconds(6))
            .keyPrefix("counters-" + client)
            .build();
    assertThat(counters.addAndGet("{login}", 3)).isEqualTo(3);
    assertThat(counters.addAndGet("{login}", 4)).isEqualTo(7);
    assertThat(counters.count("{login}")).isEqualTo(2);
    assertThat(counters.sum("login")).isZero();
    String key = Keys.tagged("counters-" + client, "{login}") + "c:10:6000000";
    long pttl = Long.parseLong(SharedRedis.server().cli("PTTL", key));
    assertThat(pttl).isPositive().isLessThanOrEqualTo(66_000);
  }

  /** What code written against the interface sees of counters on the server's clock. */
  @ParameterizedTest
  @EnumSource(Client.class)
  void counters_serverTime_throughTheInterface(Client client) {
    RollingCounters<String> counters =
        RedisCounters.builder(SharedRedis.backend(client))
            .size(60)
            .interval(Duration.ofMinutes(1))
            .keyPrefix("rolling-" + client)
            .build();
    assertThat(counters.size()).isEqualTo(60);
    assertThat(counters.interval()).isEqualTo(Duration.ofMinutes(1));
    assertThat(counters.incrementAndGet("card")).isEqualTo(1);
    assertThat(counters.addAndGet("card", 41)).isEqualTo(42);
    counters.cleanUp();
    assertThat(counters.sum("card")).isEqualTo(42);
    assertThat(counters.count("card")).isEqualTo(2);
    assertThat(counters.addAndGet("card", Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
    assertThatThrownBy(() -> counters.addAndGet("card", -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("amount must not be negative, was -1");
    assertThat(counters.count("card")).isEqualTo(3);
    assertThat(counters.sum("nobody")).isZero();
    String key = Keys.tagged("rolling-" + client, "nobody") + "c:60:60000000";
    assertThat(SharedRedis.server().cli("EXISTS", key)).isEqualTo("0");
  }

  /**
   * A server whose clock is behind the latest time an id has seen (as after a failover to a replica
   * whose clock is behind) adds to that latest time's bucket, and leaves that time as it was.
   */
  @ParameterizedTest
  @EnumSource(Client.class)
  void counters_serverTime_clockBehindTheLatest_countsAsTheLatest(Client client) {
    RedisCounters counters =
        RedisCounters.builder(SharedRedis.backend(client))
            .size(10)
            .interval(Duration.ofSeconds(6))
            .keyPrefix("behind-" + client)
            .build();
    String key = counters.keyOf("card");
    long ahead = (System.currentTimeMillis() + 3_600_000) * 1000; // an hour after Redis's clock
    SharedRedis.server().cli("HSET", key, "t", Long.toString(ahead));
    assertThat(counters.addAndGet("card", 3)).isEqualTo(3);
    assertThat(counters.sum("card")).isEqualTo(3);
    assertThat(SharedRedis.server().cli("HGET", key, "t")).isEqualTo(Long.toString(ahead));
    assertThat(SharedRedis.server().cli("HGET", key, "c" + ahead / 6_000_000)).isEqualTo("1");
    assertThat(SharedRedis.server().cli("HGET", key, "s" + ahead / 6_000_000)).isEqualTo("3");
  }
}
