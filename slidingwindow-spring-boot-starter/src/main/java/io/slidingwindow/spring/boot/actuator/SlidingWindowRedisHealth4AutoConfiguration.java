package io.slidingwindow.spring.boot.actuator;

import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.spring.boot.internal.SlidingWindowRedisLimiters;
import io.slidingwindow.spring.boot.redis.SlidingWindowRedisAutoConfiguration;
import io.slidingwindow.spring.boot.redis.SlidingWindowRedisProperties;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code slidingwindow} health indicator on Spring Boot 4 ({@link
 * SlidingWindowRedisHealth4Indicator}), when Boot 4's health module ({@code spring-boot-health},
 * brought by the actuator) is on the class path and the limits are kept in Redis; off with {@code
 * management.health.slidingwindow.enabled=false}. {@link SlidingWindowRedisHealthAutoConfiguration}
 * is its Boot 3 twin; this one backs off where Boot 3's health API is present.
 */
@AutoConfiguration(after = SlidingWindowRedisAutoConfiguration.class)
@ConditionalOnClass(
    name = {
      "org.springframework.boot.health.contributor.HealthIndicator",
      "org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator",
      "io.slidingwindow.redis.RedisRateLimiter"
    })
@ConditionalOnMissingClass("org.springframework.boot.actuate.health.HealthIndicator")
@ConditionalOnBean(RedisBackend.class)
@ConditionalOnEnabledHealthIndicator("slidingwindow")
public class SlidingWindowRedisHealth4AutoConfiguration {

  /**
   * The indicator. Package-private, as it takes the internal limiter tracker; an application
   * replaces it with a bean of its own named {@code slidingwindowHealthIndicator}.
   */
  @Bean
  @ConditionalOnMissingBean(name = "slidingwindowHealthIndicator")
  SlidingWindowRedisHealth4Indicator slidingwindowHealthIndicator(
      RedisBackend backend,
      ObjectProvider<SlidingWindowRedisLimiters> limiters,
      ObjectProvider<SlidingWindowRedisProperties> properties) {
    SlidingWindowRedisProperties redis =
        properties.getIfAvailable(SlidingWindowRedisProperties::new);
    return new SlidingWindowRedisHealth4Indicator(
        backend, limiters.getIfAvailable(), redis.getHealthTimeout());
  }
}
