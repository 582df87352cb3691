package io.slidingwindow.redis;

import io.slidingwindow.FailurePolicy;
import io.slidingwindow.Limit;
import java.time.Duration;

/** The limiter the Sentinel scenarios decide with. */
final class SentinelLimiters {

  private SentinelLimiters() {}

  /**
   * A limiter of 3 permits per 10 minutes on {@code backend} with command timeout {@code timeout}
   * (give a Jedis backend the same socket timeout), whose circuit breaker opens after 3 failures
   * for 200 ms and whose failure policy refuses: while Redis fails, every decision is a refusal, so
   * a grant is Redis answering.
   */
  static RedisRateLimiter threeInTenMinutes(RedisBackend backend, Duration timeout) {
    return RedisRateLimiter.builder(backend)
        .limit(Limit.of(3, Duration.ofMinutes(10)))
        .commandTimeout(timeout)
        .circuitBreaker(3, Duration.ofMillis(200))
        .failurePolicy(FailurePolicy.REFUSE)
        .build();
  }
}
