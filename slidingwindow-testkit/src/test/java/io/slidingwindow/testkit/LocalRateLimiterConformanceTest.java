package io.slidingwindow.testkit;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.RateLimiter;
import io.slidingwindow.Ticker;
import java.util.List;

/**
 * The in-process single-key limiter against the conformance kit. Every scenario of the kit uses one
 * key per limiter, so the limiter is built at once (reading its origin when the kit expects) and
 * the key is only checked.
 */
class LocalRateLimiterConformanceTest extends RateLimiterConformance {

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
