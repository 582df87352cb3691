package io.slidingwindow.redis.jedis;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import java.util.List;

/** A fallback for tests in which Redis must not fail: any call fails the test loudly. */
final class FailingLimiter implements KeyedRateLimiter<String> {

  @Override
  public boolean tryAcquire(String key, long permits) {
    throw new AssertionError("Redis failed where it must not; key " + key);
  }

  @Override
  public Decision decide(String key, long permits) {
    throw new AssertionError("Redis failed where it must not; key " + key);
  }

  @Override
  public List<Limit> limits() {
    return List.of();
  }
}
