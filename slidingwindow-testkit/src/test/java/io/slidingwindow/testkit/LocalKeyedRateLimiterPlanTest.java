package io.slidingwindow.testkit;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.PlanResolver;
import io.slidingwindow.Ticker;
import java.time.Clock;
import java.util.List;

/** The in-process keyed limiter against the plan and calendar kits: new windows are seeded. */
class LocalKeyedRateLimiterPlanTest extends CalendarQuotaConformance {

  @Override
  protected KeyedRateLimiter<String> newLimiter(
      List<Limit> defaults, PlanResolver<String> plans, Ticker ticker, Clock calendarClock) {
    return KeyedRateLimiter.builder()
        .limits(defaults)
        .ticker(ticker)
        .calendarClock(calendarClock)
        .build(plans);
  }

  @Override
  protected boolean seedsNewWindows() {
    return true;
  }
}
