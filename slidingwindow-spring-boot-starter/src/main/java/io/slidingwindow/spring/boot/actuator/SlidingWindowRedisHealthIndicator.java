package io.slidingwindow.spring.boot.actuator;

import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.spring.boot.internal.SlidingWindowRedisLimiters;
import java.time.Duration;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

/**
 * The health of the rate limiter's Redis, as {@code slidingwindow} in {@code /actuator/health}: UP
 * when Redis runs the limiter's probe script (a write to one key of the library's own), DOWN
 * otherwise. Details: {@code problem} and {@code explanation} when Redis refuses the script for a
 * lasting reason (a replica, no scripting, credentials, ACL rights), {@code detail} (Redis's reply
 * or why there was none), {@code latestProblem} (what the limiters' own latest failed calls met, if
 * anything), {@code limiters} and {@code breakersOpen} (how many of the starter's Redis limiters
 * skip Redis right now because it kept failing).
 *
 * <p>Each check blocks for at most about {@code slidingwindow.redis.health-timeout}. For Spring
 * Boot 3; {@link SlidingWindowRedisHealth4Indicator} reports the same on Boot 4.
 *
 * <p>The bean {@code slidingwindowHealthIndicator} of {@link
 * SlidingWindowRedisHealthAutoConfiguration}; an application may inject it, or replace it with a
 * bean of that name (or turn it off with {@code management.health.slidingwindow.enabled=false}).
 */
public class SlidingWindowRedisHealthIndicator implements HealthIndicator {

  private final RedisHealthProbe probe;

  /**
   * @param limiters the limiters whose breakers to count, or null to leave those details out
   * @throws IllegalArgumentException if {@code backend} is null or {@code timeout} is null or not
   *     positive
   */
  SlidingWindowRedisHealthIndicator(
      RedisBackend backend, SlidingWindowRedisLimiters limiters, Duration timeout) {
    this.probe = new RedisHealthProbe(backend, limiters, timeout);
  }

  @Override
  public Health health() {
    RedisHealthProbe.Result check = probe.run();
    return (check.up() ? Health.up() : Health.down()).withDetails(check.details()).build();
  }
}
