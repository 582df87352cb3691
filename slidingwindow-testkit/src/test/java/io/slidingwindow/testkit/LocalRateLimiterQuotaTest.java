package io.slidingwindow.testkit;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.RateLimiter;
import io.slidingwindow.Ticker;
import java.util.List;

/** The in-process single-key limiter against the quota kit, through {@link SingleKeyLimiter}. */
class LocalRateLimiterQuotaTest extends QuotaConformance {

  @Override
  protected KeyedRateLimiter<String> newLimiter(
      List<Limit> limits, boolean countRefusedAttempts, Ticker ticker) {
    return new SingleKeyLimiter(
        RateLimiter.builder()
            .limits(limits)
            .countRefusedAttempts(countRefusedAttempts)
            .ticker(ticker)
            .build());
  }
}
