package io.slidingwindow.redis;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Ticker;
import io.slidingwindow.testkit.FailingLimiter;
import io.slidingwindow.testkit.QuotaConformance;
import java.util.List;

/**
 * The quota kit (peek, reset, refund and reservations against the sliding-log oracle) against a
 * Redis deployment through one client, in client-time mode so that the kit's fake clock drives the
 * script. A failure reaching the failure policy fails the test.
 */
abstract class RedisQuotaConformance extends QuotaConformance {

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
}
