package io.slidingwindow.testkit;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import java.util.List;

/**
 * A fallback limiter for tests in which the backend must not fail: any call fails the test with an
 * {@link AssertionError} naming the key, instead of being answered quietly by a failure policy.
 */
public final class FailingLimiter implements KeyedRateLimiter<String> {

  @Override
  public boolean tryAcquire(String key, long permits) {
    throw new AssertionError("the backend failed where it must not; key " + key);
  }

  @Override
  public Decision decide(String key, long permits) {
    throw new AssertionError("the backend failed where it must not; key " + key);
  }

  @Override
  public List<Limit> limits() {
    return List.of();
  }
}
