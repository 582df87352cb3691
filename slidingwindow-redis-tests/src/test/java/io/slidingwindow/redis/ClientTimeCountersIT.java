package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.FakeTicker;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The Redis counters on client time, on the shared server: what a restart does (the ticker starts
 * over), how they stay apart from counters on the server's clock, and that reading writes nothing.
 * Their schedules against the brute-force model are the counters' conformance ITs.
 */
class ClientTimeCountersIT {

  private static final Duration SECOND = Duration.ofSeconds(1);

  private static RedisCounters counters(Client client, String prefix, FakeTicker ticker) {
    RedisCounters.Builder builder =
        RedisCounters.builder(SharedRedis.backend(client))
            .keyPrefix(prefix + "-" + client)
            .size(3)
            .interval(SECOND)
            .commandTimeout(Client.GENEROUS);
    return (ticker == null ? builder : builder.clientTime(ticker)).build();
  }

  /**
   * A process that ran an hour, then a new one whose ticker starts over: the new adds land in the
   * new clock's buckets and leave the window on that clock.
   */
  @ParameterizedTest
  @EnumSource(Client.class)
  void restart_tickerStartsOver_newAddsCountInTheCurrentBuckets(Client client) {
    FakeTicker before = new FakeTicker(7_000_000_000L);
    RedisCounters first = counters(client, "restart", before);
    before.advance(Duration.ofHours(1));
    assertThat(first.addAndGet("card", 5)).isEqualTo(5);
    assertThat(first.addAndGet("card", 5)).isEqualTo(10);

    FakeTicker after = new FakeTicker(-3_000_000_000L); // another process: another origin
    RedisCounters second = counters(client, "restart", after);
    assertThat(second.addAndGet("card", 1))
        .as("first add after the restart, bucket 0")
        .isEqualTo(1);
    after.advance(SECOND);
    assertThat(second.addAndGet("card", 2)).as("bucket 1").isEqualTo(3);
    assertThat(second.count("card")).isEqualTo(2);
    after.advance(SECOND.multipliedBy(2));
    assertThat(second.sum("card")).as("bucket 3: bucket 0 has left").isEqualTo(2);
    after.advance(SECOND);
    assertThat(second.sum("card")).as("bucket 4: both have left").isZero();
    assertThat(second.count("card")).isZero();
    assertThat(second.addAndGet("card", 4)).isEqualTo(4);

    // Long after, on the new clock, the hour-old adds do not come back.
    after.advance(Duration.ofHours(1));
    assertThat(second.addAndGet("card", 6)).as("an hour on, on the new clock").isEqualTo(6);
    assertThat(second.count("card")).isEqualTo(1);
  }

  /** Counters on the server's clock and on client time, with the same settings, share nothing. */
  @ParameterizedTest
  @EnumSource(Client.class)
  void serverAndClientTime_sameSettings_keepApart(Client client) {
    RedisCounters server = counters(client, "both-clocks", null);
    FakeTicker ticker = new FakeTicker();
    RedisCounters local = counters(client, "both-clocks", ticker);
    assertThat(server.addAndGet("ip", 7)).isEqualTo(7);
    assertThat(local.sum("ip")).isZero();
    assertThat(local.addAndGet("ip", 1)).isEqualTo(1);
    ticker.advance(SECOND.multipliedBy(3));
    assertThat(local.sum("ip")).as("client time, bucket 3: the add has left").isZero();
    assertThat(server.sum("ip")).isEqualTo(7);
    assertThat(server.count("ip")).isEqualTo(1);
  }

  /** With client time, {@code sum} and {@code count} leave the id's hash as it was. */
  @ParameterizedTest
  @EnumSource(Client.class)
  void clientTime_reads_writeNothing(Client client) {
    FakeTicker ticker = new FakeTicker();
    RedisCounters counters = counters(client, "reads", ticker);
    assertThat(counters.addAndGet("card", 3)).isEqualTo(3);
    String key = counters.keyOf("card");
    String stored = SharedRedis.server().cli("HGETALL", key);
    assertThat(stored).isNotBlank();
    ticker.advance(SECOND.multipliedBy(5)); // the add has left
    assertThat(counters.sum("card")).isZero();
    assertThat(counters.count("card")).isZero();
    assertThat(SharedRedis.server().cli("HGETALL", key)).isEqualTo(stored);
    assertThat(counters.sum("nobody")).isZero();
    assertThat(SharedRedis.server().cli("EXISTS", counters.keyOf("nobody"))).isEqualTo("0");
  }
}
