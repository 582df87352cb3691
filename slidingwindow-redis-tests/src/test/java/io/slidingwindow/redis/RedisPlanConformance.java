package io.slidingwindow.redis;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.PlanResolver;
import io.slidingwindow.Ticker;
import io.slidingwindow.testkit.CalendarQuotaConformance;
import io.slidingwindow.testkit.FailingLimiter;
import java.time.Clock;
import java.util.List;

/**
 * The plan and calendar kits against a Redis deployment through one client, in client-time mode:
 * the limits of an id's plan go with each call, a window new to the id starts empty, and calendar
 * quotas decide as the calendar log does, with {@code calendarClock} the calendar time of the
 * ticker's first reading.
 */
abstract class RedisPlanConformance extends CalendarQuotaConformance {

  /** The deployment and client under test. */
  abstract RedisBackend backend();

  @Override
  protected KeyedRateLimiter<String> newLimiter(
      List<Limit> defaults, PlanResolver<String> plans, Ticker ticker, Clock calendarClock) {
    return RedisRateLimiter.builder(backend())
        .limits(defaults)
        .clientTime(ticker)
        .calendarClock(calendarClock)
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
