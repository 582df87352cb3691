package io.slidingwindow.spring.boot.actuator;

import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.spring.boot.internal.SlidingWindowRedisLimiters;
import java.time.Duration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The health of the rate limiter's Redis on Spring Boot 4, as {@code slidingwindow} in {@code
 * /actuator/health}: the same status and details as {@link SlidingWindowRedisHealthIndicator}
 * reports on Boot 3, through Boot 4's health API.
 *
 * <p>Each check blocks for at most about {@code slidingwindow.redis.health-timeout}. The bean
 * {@code slidingwindowHealthIndicator} of {@link SlidingWindowRedisHealth4AutoConfiguration}; an
 * application may inject it, or replace it with a bean of that name.
 */
public class SlidingWindowRedisHealth4Indicator implements HealthIndicator {

  private final RedisHealthProbe probe;

  /**
   * @param limiters the limiters whose breakers to count, or null to leave those details out
   * @throws IllegalArgumentException if {@code backend} is null or {@code timeout} is null or not
   *     positive
   */
  SlidingWindowRedisHealth4Indicator(
      RedisBackend backend, SlidingWindowRedisLimiters limiters, Duration timeout) {
    this.probe = new RedisHealthProbe(backend, limiters, timeout);
  }

  @Override
  public Health health() {
    RedisHealthProbe.Result check = probe.run();
    return (check.up() ? Health.up() : Health.down()).withDetails(check.details()).build();
  }
}
