package io.slidingwindow.redis.jedis;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Ticker;
import io.slidingwindow.redis.FailurePolicy;
import io.slidingwindow.redis.RedisRateLimiter;
import io.slidingwindow.testkit.FailingLimiter;
import io.slidingwindow.testkit.RateLimiterConformance;
import java.time.Duration;
import java.util.List;

/**
 * The core conformance kit against a standalone redis-server through Jedis, in client-time mode so
 * that the kit's fake clock drives the script; set up as the Lettuce module's kit is. A failure
 * reaching the failure policy fails the test.
 */
class JedisConformanceIT extends RateLimiterConformance {

  @Override
  protected KeyedRateLimiter<String> newLimiter(
      List<Limit> limits, boolean countRefusedAttempts, Ticker ticker) {
    return RedisRateLimiter.builder(SharedServer.jedis())
        .keyPrefix("jedis-conformance")
        .limits(limits)
        .countRefusedAttempts(countRefusedAttempts)
        .clientTime(ticker)
        .commandTimeout(Duration.ofSeconds(5))
        .failurePolicy(FailurePolicy.fallbackTo(new FailingLimiter()))
        .build();
  }

  /** Redis time is in microseconds. */
  @Override
  protected long tickNanos() {
    return 1_000;
  }

  /** As for Lettuce: a backward step is recorded into the newest stored run (docs/redis.md). */
  @Override
  protected boolean decidesAtLatestReading() {
    return false;
  }
}
