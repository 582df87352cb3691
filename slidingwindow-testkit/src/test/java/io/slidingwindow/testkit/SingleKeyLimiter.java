package io.slidingwindow.testkit;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Quota;
import io.slidingwindow.RateLimiter;
import io.slidingwindow.Reservation;
import java.util.List;

/**
 * A single-key {@link RateLimiter} seen as a keyed limiter, so that the conformance kits can drive
 * it: every scenario of the kits uses one key per limiter, so the key is only checked.
 */
final class SingleKeyLimiter implements KeyedRateLimiter<String> {

  private final RateLimiter limiter;

  SingleKeyLimiter(RateLimiter limiter) {
    this.limiter = limiter;
  }

  private RateLimiter limiter(String key) {
    if (key == null) {
      throw new IllegalArgumentException("key must not be null");
    }
    return limiter;
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
  public Quota peek(String key) {
    return limiter(key).peek();
  }

  @Override
  public void reset(String key) {
    limiter(key).reset();
  }

  @Override
  public Quota refund(String key, long permits) {
    return limiter(key).refund(permits);
  }

  @Override
  public Reservation reserve(String key, String group, long permits) {
    return limiter(key).reserve(permits);
  }

  @Override
  public List<Limit> limits() {
    return limiter.limits();
  }
}
