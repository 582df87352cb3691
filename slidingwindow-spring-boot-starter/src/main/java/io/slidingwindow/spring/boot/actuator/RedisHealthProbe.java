package io.slidingwindow.spring.boot.actuator;

import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.redis.RedisHealth;
import io.slidingwindow.redis.RedisProblem;
import io.slidingwindow.redis.RedisUris;
import io.slidingwindow.spring.boot.internal.SlidingWindowRedisLimiters;
import io.slidingwindow.spring.boot.redis.SlidingWindowRedisProperties;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The health check of the limiter's Redis, free of Spring Boot's health API, which moved package in
 * Boot 4: {@link SlidingWindowRedisHealthIndicator} (Boot 3) and {@link
 * SlidingWindowRedisHealth4Indicator} (Boot 4) each hold one and only translate its {@link Result}.
 */
final class RedisHealthProbe {

  private final RedisBackend backend;
  private final SlidingWindowRedisLimiters limiters;
  private final Duration timeout;

  /**
   * @param limiters the limiters whose breakers to count, or null to leave those details out
   * @throws IllegalArgumentException if {@code backend} is null or {@code timeout} is null or not
   *     positive
   */
  RedisHealthProbe(RedisBackend backend, SlidingWindowRedisLimiters limiters, Duration timeout) {
    if (backend == null) {
      throw new IllegalArgumentException("backend must not be null");
    }
    if (timeout == null || timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException(
          SlidingWindowRedisProperties.PREFIX + ".health-timeout must be positive, was " + timeout);
    }
    this.backend = backend;
    this.limiters = limiters;
    this.timeout = timeout;
  }

  /**
   * One check's outcome.
   *
   * @param up whether Redis ran the probe script
   * @param details the details in the order they are reported
   */
  record Result(boolean up, Map<String, Object> details) {}

  /** Probes the backend, blocking for at most about the timeout. */
  Result run() {
    RedisHealth probe = backend.health(timeout);
    Map<String, Object> details = new LinkedHashMap<>();
    if (probe.problem() != null) {
      details.put("problem", probe.problem().name());
      details.put("explanation", probe.problem().explanation(backend.findsMasterAgain()));
    }
    details.put("detail", RedisUris.mask(probe.detail()));
    RedisProblem latest = backend.latestProblem();
    if (latest != null) {
      details.put("latestProblem", latest.name());
    }
    if (limiters != null) {
      details.put("limiters", limiters.count());
      details.put("breakersOpen", limiters.breakersOpen());
    }
    return new Result(probe.up(), details);
  }
}
