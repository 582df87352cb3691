package io.slidingwindow.testkit;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Ticker;
import java.util.List;

/** The in-process keyed limiter against the quota kit. */
class LocalKeyedRateLimiterQuotaTest extends QuotaConformance {

  @Override
  protected KeyedRateLimiter<String> newLimiter(
      List<Limit> limits, boolean countRefusedAttempts, Ticker ticker) {
    return KeyedRateLimiter.builder()
        .limits(limits)
        .countRefusedAttempts(countRefusedAttempts)
        .ticker(ticker)
        .build();
  }
}
