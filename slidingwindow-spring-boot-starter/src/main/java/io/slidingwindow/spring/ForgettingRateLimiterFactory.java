package io.slidingwindow.spring;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.http.RateLimiterFactory;

/**
 * A {@link RateLimiterFactory} that keeps hold of the limiters it creates (to clean them, or to
 * report on them), and so must be told when one goes out of service, as a reload of the rules
 * replaces or removes it; otherwise every reload would leave its old limiters held for good.
 */
interface ForgettingRateLimiterFactory extends RateLimiterFactory {

  /** Lets go of {@code limiter}, which this factory created and which is out of service. */
  void forget(KeyedRateLimiter<String> limiter);
}
