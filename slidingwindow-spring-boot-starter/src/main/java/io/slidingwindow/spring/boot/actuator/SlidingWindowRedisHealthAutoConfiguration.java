package io.slidingwindow.spring.boot.actuator;

import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.spring.boot.internal.SlidingWindowRedisLimiters;
import io.slidingwindow.spring.boot.redis.SlidingWindowRedisAutoConfiguration;
import io.slidingwindow.spring.boot.redis.SlidingWindowRedisProperties;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code slidingwindow} health indicator ({@link SlidingWindowRedisHealthIndicator}) when the
 * actuator is on the class path and the limits are kept in Redis; off with {@code
 * management.health.slidingwindow.enabled=false}. For Spring Boot 3's actuator; {@link
 * SlidingWindowRedisHealth4AutoConfiguration} is its Boot 4 twin.
 */
@AutoConfiguration(after = SlidingWindowRedisAutoConfiguration.class)
@ConditionalOnClass(
    name = {
      // Spring Boot 3's health API; SlidingWindowRedisHealth4AutoConfiguration serves Boot 4.
      "org.springframework.boot.actuate.health.HealthIndicator",
      "org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator",
      "io.slidingwindow.redis.RedisRateLimiter"
    })
@ConditionalOnBean(RedisBackend.class)
@ConditionalOnEnabledHealthIndicator("slidingwindow")
public class SlidingWindowRedisHealthAutoConfiguration {

  /**
   * The indicator. Package-private, as it takes the internal limiter tracker; an application
   * replaces it with a bean of its own named {@code slidingwindowHealthIndicator}.
   */
  @Bean
  @ConditionalOnMissingBean(name = "slidingwindowHealthIndicator")
  SlidingWindowRedisHealthIndicator slidingwindowHealthIndicator(
      RedisBackend backend,
      ObjectProvider<SlidingWindowRedisLimiters> limiters,
      ObjectProvider<SlidingWindowRedisProperties> properties) {
    SlidingWindowRedisProperties redis =
        properties.getIfAvailable(SlidingWindowRedisProperties::new);
    return new SlidingWindowRedisHealthIndicator(
        backend, limiters.getIfAvailable(), redis.getHealthTimeout());
  }
}
