package io.slidingwindow.spring.boot.aop;

import io.micrometer.core.instrument.MeterRegistry;
import io.slidingwindow.Ticker;
import io.slidingwindow.http.RateLimitListener;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.spring.boot.internal.InMemoryBackend;
import io.slidingwindow.spring.boot.internal.Listeners;
import io.slidingwindow.spring.boot.redis.SlidingWindowRedisAutoConfiguration;
import io.slidingwindow.spring.boot.web.SlidingWindowAutoConfiguration;
import io.slidingwindow.spring.boot.web.SlidingWindowHttpProperties;
import io.slidingwindow.spring.boot.web.SlidingWindowReactiveAutoConfiguration;
import io.slidingwindow.spring.method.RateLimitMethodPostProcessor;
import org.springframework.aop.framework.AbstractAdvisingBeanPostProcessor;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.SearchStrategy;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;

/**
 * Auto-configuration of {@link RateLimit} on any bean method (not only web handlers), in web and
 * non-web applications alike: a {@link RateLimitMethodPostProcessor} whose limiters come from the
 * {@link RateLimiterFactory} the starter chose (Redis when configured, else the web configuration's
 * in-memory backend, else an in-memory backend of its own with the same {@code
 * slidingwindow.http.max-keys-per-rule}, {@code max-keys-per-client} and {@code cleanup-interval}
 * on the {@link Ticker} bean or the system clock), and whose decisions are told to every {@link
 * RateLimitListener} bean and to the Micrometer counters, as the web rules' are. Proxies are
 * class-based unless {@code spring.aop.proxy-target-class=false}. Every bean backs off for one the
 * application defines (the post-processor, one of this context's); {@code
 * slidingwindow.aop.enabled=false} turns it off.
 */
@AutoConfiguration(
    after = {
      SlidingWindowRedisAutoConfiguration.class,
      SlidingWindowAutoConfiguration.class,
      SlidingWindowReactiveAutoConfiguration.class
    })
@ConditionalOnClass({RateLimitMethodPostProcessor.class, AbstractAdvisingBeanPostProcessor.class})
@ConditionalOnProperty(
    prefix = "slidingwindow.aop",
    name = "enabled",
    havingValue = "true",
    matchIfMissing = true)
@EnableConfigurationProperties(SlidingWindowHttpProperties.class)
public class SlidingWindowAopAutoConfiguration {

  /**
   * Advises the beans whose methods carry {@link RateLimit}; static, as post-processors are, and
   * asking for the backend and the listeners only when the first limiter is created. A context has
   * its own even when its parent has one: a post-processor works only in the context that holds it,
   * and the parent's would leave this context's beans unlimited.
   */
  @Bean
  @ConditionalOnMissingBean(search = SearchStrategy.CURRENT)
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  public static RateLimitMethodPostProcessor slidingWindowRateLimitMethodPostProcessor(
      ObjectProvider<RateLimiterFactory> limiterFactory,
      ObjectProvider<RateLimitListener> listeners,
      ObjectProvider<MeterRegistry> registry,
      Environment environment) {
    RateLimitMethodPostProcessor processor =
        new RateLimitMethodPostProcessor(
            limiterFactory::getObject, () -> Listeners.of(listeners, registry));
    processor.setProxyTargetClass(
        environment.getProperty("spring.aop.proxy-target-class", Boolean.class, Boolean.TRUE));
    return processor;
  }

  /** The in-memory backend, when neither a web configuration nor Redis has defined one. */
  @Bean
  @ConditionalOnMissingBean
  public RateLimiterFactory slidingWindowMethodRateLimiterFactory(
      SlidingWindowHttpProperties properties, ObjectProvider<Ticker> ticker) {
    return InMemoryBackend.cleaning(properties, ticker.getIfAvailable(Ticker::system));
  }
}
