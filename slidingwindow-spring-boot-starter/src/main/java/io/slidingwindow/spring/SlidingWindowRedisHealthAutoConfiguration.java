package io.slidingwindow.spring;

import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.redis.RedisRateLimiter;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code slidingwindow} health indicator ({@link SlidingWindowRedisHealthIndicator}) when the
 * actuator is on the class path and the limits are kept in Redis; off with {@code
 * management.health.slidingwindow.enabled=false}.
 */
@AutoConfiguration(after = SlidingWindowRedisAutoConfiguration.class)
@ConditionalOnClass({
  HealthIndicator.class,
  ConditionalOnEnabledHealthIndicator.class,
  RedisRateLimiter.class
})
@ConditionalOnBean(RedisBackend.class)
@ConditionalOnEnabledHealthIndicator("slidingwindow")
public class SlidingWindowRedisHealthAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean(name = "slidingwindowHealthIndicator")
  public SlidingWindowRedisHealthIndicator slidingwindowHealthIndicator(
      RedisBackend backend,
      ObjectProvider<SlidingWindowRedisLimiters> limiters,
      ObjectProvider<SlidingWindowRedisProperties> properties) {
    SlidingWindowRedisProperties redis =
        properties.getIfAvailable(SlidingWindowRedisProperties::new);
    return new SlidingWindowRedisHealthIndicator(
        backend, limiters.getIfAvailable(), redis.getHealthTimeout());
  }
}
