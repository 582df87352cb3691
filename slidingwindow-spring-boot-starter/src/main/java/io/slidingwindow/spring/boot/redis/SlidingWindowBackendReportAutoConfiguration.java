package io.slidingwindow.spring.boot.redis;

import io.slidingwindow.spring.boot.web.SlidingWindowAutoConfiguration;
import io.slidingwindow.spring.boot.web.SlidingWindowReactiveAutoConfiguration;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Logs once at start-up where the rate limits are kept when the limiter stays in memory, so that a
 * Redis setting the starter could not use does not go unnoticed; see {@code
 * SlidingWindowBackendReport}.
 */
@AutoConfiguration(
    after = {
      SlidingWindowAutoConfiguration.class,
      SlidingWindowReactiveAutoConfiguration.class,
      SlidingWindowRedisAutoConfiguration.class
    })
public class SlidingWindowBackendReportAutoConfiguration {

  @Bean
  static SlidingWindowBackendReport slidingWindowBackendReport(
      ConfigurableListableBeanFactory beans, Environment environment) {
    return new SlidingWindowBackendReport(beans, environment);
  }
}
