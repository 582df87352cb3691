package io.slidingwindow.redis;

import io.slidingwindow.RollingCounters;
import io.slidingwindow.Ticker;
import io.slidingwindow.testkit.RollingCountersConformance;
import java.time.Duration;

/**
 * The Redis counters, as {@link RollingCounters}, against the counters' conformance kit on a
 * standalone server through Jedis: the same schedules and model as the in-process counters.
 */
class JedisCountersConformanceIT extends RollingCountersConformance {

  @Override
  protected RollingCounters<String> newCounters(int size, Duration interval, Ticker ticker) {
    return RedisCounters.builder(SharedRedis.backend(Client.JEDIS))
        .size(size)
        .interval(interval)
        .clientTime(ticker)
        .commandTimeout(Client.GENEROUS)
        .build();
  }

  /** Redis counts whole microseconds. */
  @Override
  protected long intervalUnitNanos() {
    return 1_000;
  }
}
