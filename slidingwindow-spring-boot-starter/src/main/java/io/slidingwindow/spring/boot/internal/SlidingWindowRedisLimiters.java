package io.slidingwindow.spring.boot.internal;

import io.slidingwindow.redis.RedisRateLimiter;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The Redis limiters the starter's {@code RateLimiterFactory} has built and that are in service,
 * one per rule, so that the health indicator can say how many have their circuit breaker open: a
 * bean of the Redis configuration, read by the actuator's. A reload of the rules removes those it
 * takes out of service. Thread-safe.
 */
public final class SlidingWindowRedisLimiters {

  private final List<RedisRateLimiter> limiters = new CopyOnWriteArrayList<>();

  /** Records {@code limiter} and returns it. */
  public RedisRateLimiter add(RedisRateLimiter limiter) {
    limiters.add(limiter);
    return limiter;
  }

  /** Forgets {@code limiter}, which is out of service (a reload replaced or removed its rule). */
  public void remove(Object limiter) {
    limiters.remove(limiter);
  }

  /** How many limiters are in service. */
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
