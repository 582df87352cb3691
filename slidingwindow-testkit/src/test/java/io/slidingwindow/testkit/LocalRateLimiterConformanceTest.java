package io.slidingwindow.testkit;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.RateLimiter;
import io.slidingwindow.Ticker;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The in-process single-key limiter against the conformance kit, one limiter per key. */
class LocalRateLimiterConformanceTest extends RateLimiterConformance {

  @Override
  protected KeyedRateLimiter<String> newLimiter(
      List<Limit> limits, boolean countRefusedAttempts, Ticker ticker) {
    Map<String, RateLimiter> perKey = new ConcurrentHashMap<>();
    RateLimiter.Builder builder =
        RateLimiter.builder().limits(limits).countRefusedAttempts(countRefusedAttempts).ticker(ticker);
    return new KeyedRateLimiter<>() {
      private RateLimiter limiter(String key) {
        if (key == null) {
          throw new IllegalArgumentException("key must not be null");
        }
        return perKey.computeIfAbsent(key, k -> builder.build());
      }

      @Override
      public boolean tryAcquire(String key, long permits) {
        return limiter(key).tryAcquire(permits);
      }

      @Override
      public Decision decide(String key, long permits) {
        return limiter(key).decide(permits);
      }

      @Override
      public List<Limit> limits() {
        return limits;
      }
    };
  }
}
