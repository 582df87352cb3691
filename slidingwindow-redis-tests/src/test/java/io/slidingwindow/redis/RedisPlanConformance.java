package io.slidingwindow.redis;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.PlanResolver;
import io.slidingwindow.Ticker;
import io.slidingwindow.testkit.FailingLimiter;
import io.slidingwindow.testkit.PlanConformance;
import java.time.Clock;
import java.util.List;

/**
 * The plan kit against a Redis deployment through one client, in client-time mode: the limits of an
 * id's plan go with each call, and a window new to the id starts empty. The Redis limiter has no
 * calendar quotas, so {@code calendarClock} is not used.
 */
abstract class RedisPlanConformance extends PlanConformance {

  /** The deployment and client under test. */
  abstract RedisBackend backend();

  @Override
  protected KeyedRateLimiter<String> newLimiter(
      List<Limit> defaults, PlanResolver<String> plans, Ticker ticker, Clock calendarClock) {
    return RedisRateLimiter.builder(backend())
        .limits(defaults)
        .clientTime(ticker)
        .commandTimeout(Client.GENEROUS)
        .fallback(new FailingLimiter())
        .build(plans);
  }

  @Override
  protected boolean seedsNewWindows() {
    return false;
  }

  /** Redis time is in microseconds. */
  @Override
  protected long tickNanos() {
    return 1_000;
  }
}
