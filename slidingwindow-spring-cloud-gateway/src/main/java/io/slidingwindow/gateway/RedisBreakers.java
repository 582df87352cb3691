package io.slidingwindow.gateway;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.redis.RedisRateLimiter;

/**
 * Whether a route's limiter answers by its own failure policy right now: a Redis limiter whose
 * circuit breaker is open. Reads {@code slidingwindow-redis}'s class only when that module is on
 * the class path ({@link #PRESENT}), so that a gateway without Redis never loads it. Stateless.
 */
final class RedisBreakers {

  /** Whether {@code slidingwindow-redis} is on the class path. */
  private static final boolean PRESENT = present();

  private RedisBreakers() {}

  /** Whether {@code limiter} is a Redis limiter whose breaker is open; false for any other. */
  static boolean open(KeyedRateLimiter<String> limiter) {
    return PRESENT && Redis.open(limiter);
  }

  private static boolean present() {
    try {
      Class.forName(
          "io.slidingwindow.redis.RedisRateLimiter", false, RedisBreakers.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** Loaded only when the Redis module is present. */
  private static final class Redis {
    static boolean open(KeyedRateLimiter<String> limiter) {
      return limiter instanceof RedisRateLimiter redis && redis.isBreakerOpen();
    }
  }
}
