package io.slidingwindow.gateway;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One route's limiter seen from the event loop: a decision as a stage that never blocks the caller.
 *
 * <p>A Redis limiter answers through its asynchronous call; an in-process limiter decides at once
 * (it holds one key's lock for the few nanoseconds of the window arithmetic, never waits for I/O),
 * so its stage is already complete.
 */
interface Decider {

  /**
   * Decides {@code permits} for {@code key}; the stage completes exceptionally if the limiter
   * threw.
   */
  CompletionStage<Decision> decide(String key, long permits);

  /**
   * Whether the limiter is answering by its own failure policy right now (a Redis limiter whose
   * circuit breaker is open); false for limiters that cannot fail.
   */
  default boolean degraded() {
    return false;
  }

  /** The decider of {@code limiter}: its asynchronous call where it has one. */
  static Decider of(KeyedRateLimiter<String> limiter) {
    if (RedisDecider.PRESENT && RedisDecider.accepts(limiter)) {
      return RedisDecider.of(limiter);
    }
    return (key, permits) -> {
      try {
        return CompletableFuture.completedFuture(limiter.decide(key, permits));
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
    };
  }
}
