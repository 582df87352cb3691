package io.slidingwindow.spring;

import io.slidingwindow.redis.RedisRateLimiter;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The Redis limiters the starter's {@code RateLimiterFactory} has built, one per rule, so that the
 * health indicator can say how many have their circuit breaker open. Thread-safe.
 */
public final class SlidingWindowRedisLimiters {

  private final List<RedisRateLimiter> limiters = new CopyOnWriteArrayList<>();

  /** Records {@code limiter} and returns it. */
  RedisRateLimiter add(RedisRateLimiter limiter) {
    limiters.add(limiter);
    return limiter;
  }

  /** How many limiters have been built. */
  public int count() {
    return limiters.size();
  }

  /** How many of them have their circuit breaker open right now (Redis failing, calls skipped). */
  public int breakersOpen() {
    int open = 0;
    for (RedisRateLimiter limiter : limiters) {
      open += limiter.isBreakerOpen() ? 1 : 0;
    }
    return open;
  }
}
