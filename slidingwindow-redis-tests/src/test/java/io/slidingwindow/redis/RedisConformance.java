package io.slidingwindow.redis;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Ticker;
import io.slidingwindow.testkit.FailingLimiter;
import io.slidingwindow.testkit.RateLimiterConformance;
import java.util.List;

/**
 * The core conformance kit (the sliding-log oracle's scenarios) against a Redis deployment through
 * one client, in client-time mode so that the kit's fake clock drives the script. A failure
 * reaching the failure policy fails the test. One small subclass per client and topology.
 */
abstract class RedisConformance extends RateLimiterConformance {

  /** The deployment and client under test. */
  abstract RedisBackend backend();

  @Override
  protected KeyedRateLimiter<String> newLimiter(
      List<Limit> limits, boolean countRefusedAttempts, Ticker ticker) {
    return RedisRateLimiter.builder(backend())
        .limits(limits)
        .countRefusedAttempts(countRefusedAttempts)
        .clientTime(ticker)
        .commandTimeout(Client.GENEROUS)
        .fallback(new FailingLimiter())
        .build();
  }

  /** Redis time is in microseconds. */
  @Override
  protected long tickNanos() {
    return 1_000;
  }

  /**
   * A clock that steps back is recorded into the newest stored run and counted from there, which
   * never lets more through but need not match a decision at the latest reading (see docs/redis.md,
   * "Time and units"); the kit's backward-clock test still runs.
   */
  @Override
  protected boolean decidesAtLatestReading() {
    return false;
  }
}
