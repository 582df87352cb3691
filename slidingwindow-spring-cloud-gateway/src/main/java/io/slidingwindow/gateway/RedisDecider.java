package io.slidingwindow.gateway;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.redis.RedisRateLimiter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The {@link Decider} of a {@link RedisRateLimiter}: its non-blocking {@code decideAsync}. Loaded
 * only when {@code slidingwindow-redis} is on the class path ({@link #PRESENT}).
 */
final class RedisDecider implements Decider {

  /** Whether {@code slidingwindow-redis} is on the class path. */
  static final boolean PRESENT = present();

  private final RedisRateLimiter limiter;

  private RedisDecider(RedisRateLimiter limiter) {
    this.limiter = limiter;
  }

  private static boolean present() {
    try {
      Class.forName(
          "io.slidingwindow.redis.RedisRateLimiter", false, RedisDecider.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  static boolean accepts(KeyedRateLimiter<String> limiter) {
    return limiter instanceof RedisRateLimiter;
  }

  static Decider of(KeyedRateLimiter<String> limiter) {
    return new RedisDecider((RedisRateLimiter) limiter);
  }

  @Override
  public CompletionStage<Decision> decide(String key, long permits) {
    try {
      return limiter.decideAsync(key, permits);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public boolean degraded() {
    return limiter.isBreakerOpen();
  }

  @Override
  public String toString() {
    return limiter.toString();
  }
}
