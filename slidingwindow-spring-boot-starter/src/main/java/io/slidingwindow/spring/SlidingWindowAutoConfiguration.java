package io.slidingwindow.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.slidingwindow.Ticker;
import io.slidingwindow.servlet.ClientIpResolver;
import io.slidingwindow.servlet.KeyResolver;
import io.slidingwindow.servlet.RateLimitEnforcer;
import io.slidingwindow.servlet.RateLimitFilter;
import io.slidingwindow.servlet.RateLimitListener;
import io.slidingwindow.servlet.RateLimiterFactory;
import java.lang.reflect.Method;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.web.servlet.ConditionalOnMissingFilterBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * Auto-configuration of sliding-window HTTP rate limiting for servlet web applications.
 *
 * <p>Every bean backs off when the application defines one of the same type: the {@link Ticker}
 * (the system clock), the {@link ClientIpResolver} (from {@code trusted-proxies}), the {@link
 * RateLimiterFactory} (the in-memory backend), the {@link RateLimitListener} (Micrometer counters
 * when a {@link MeterRegistry} is present), the {@link RateLimitEnforcer} (the rules of {@code
 * slidingwindow.http.rules}), the filter (a {@link RateLimitFilter} or its registration) and the
 * {@link RateLimitInterceptor} behind {@link RateLimit}. {@code slidingwindow.http.enabled=false}
 * turns it all off.
 */
@AutoConfiguration
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(RateLimitFilter.class)
@ConditionalOnProperty(
    prefix = SlidingWindowProperties.PREFIX,
    name = "enabled",
    havingValue = "true",
    matchIfMissing = true)
@EnableConfigurationProperties(SlidingWindowProperties.class)
public class SlidingWindowAutoConfiguration {

  /** The clock of the in-memory limiters. */
  @Bean
  @ConditionalOnMissingBean
  public Ticker slidingWindowTicker() {
    return Ticker.system();
  }

  /** Finds client addresses, believing X-Forwarded-For only from the trusted proxies. */
  @Bean
  @ConditionalOnMissingBean
  public ClientIpResolver slidingWindowClientIpResolver(SlidingWindowProperties properties) {
    try {
      return ClientIpResolver.trusting(properties.getTrustedProxies());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          SlidingWindowProperties.PREFIX + ".trusted-proxies is invalid: " + e.getMessage(), e);
    }
  }

  /** The in-memory backend: one keyed limiter per rule on the ticker. */
  @Bean
  @ConditionalOnMissingBean
  public RateLimiterFactory slidingWindowRateLimiterFactory(
      SlidingWindowProperties properties, Ticker ticker) {
    long maxKeys = properties.getMaxKeysPerRule();
    if (maxKeys <= 0 || maxKeys > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          SlidingWindowProperties.PREFIX
              + ".max-keys-per-rule must be between 1 and "
              + Integer.MAX_VALUE
              + ", was "
              + maxKeys);
    }
    return RateLimiterFactory.inMemory(ticker, maxKeys);
  }

  /** Micrometer counters per rule and outcome, when there is a meter registry. */
  @Bean
  @ConditionalOnMissingBean
  public RateLimitListener slidingWindowRateLimitListener(ObjectProvider<MeterRegistry> registry) {
    MeterRegistry meters = registry.getIfUnique();
    return meters == null ? RateLimitListener.NONE : new MicrometerRateLimitListener(meters);
  }

  /** The rules of {@code slidingwindow.http.rules}, checked here so that bad ones stop start-up. */
  @Bean
  @ConditionalOnMissingBean
  public RateLimitEnforcer slidingWindowRateLimitEnforcer(
      SlidingWindowProperties properties,
      ClientIpResolver clientIp,
      RateLimiterFactory limiterFactory,
      RateLimitListener listener,
      ListableBeanFactory beans) {
    return RateLimitEnforcer.builder()
        .rules(
            RuleBinder.rules(
                properties,
                clientIp,
                name ->
                    beans.containsBean(name) && beans.isTypeMatch(name, KeyResolver.class)
                        ? beans.getBean(name, KeyResolver.class)
                        : null))
        .limiterFactory(limiterFactory)
        .listener(listener)
        .rateLimitHeaders(properties.isRateLimitHeaders())
        .build();
  }

  /** Registers the filter on every path, for requests (not error or forward dispatches). */
  @Bean
  @ConditionalOnMissingFilterBean(RateLimitFilter.class)
  public FilterRegistrationBean<RateLimitFilter> slidingWindowRateLimitFilter(
      RateLimitEnforcer enforcer, SlidingWindowProperties properties) {
    FilterRegistrationBean<RateLimitFilter> registration =
        new FilterRegistrationBean<>(new RateLimitFilter(enforcer));
    registration.setName("slidingWindowRateLimitFilter");
    registration.addUrlPatterns("/*");
    registration.setOrder(properties.getFilterOrder());
    return registration;
  }

  /** {@link RateLimit} on Spring MVC handler methods. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(WebMvcConfigurer.class)
  static class RateLimitAnnotationConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RateLimitInterceptor slidingWindowRateLimitInterceptor(
        RateLimiterFactory limiterFactory,
        RateLimitListener listener,
        ClientIpResolver clientIp,
        SlidingWindowProperties properties) {
      return new RateLimitInterceptor(
          limiterFactory,
          listener,
          clientIp,
          properties.isRateLimitHeaders(),
          properties.isDryRun());
    }

    @Bean
    WebMvcConfigurer slidingWindowRateLimitWebMvcConfigurer(RateLimitInterceptor interceptor) {
      return new WebMvcConfigurer() {
        @Override
        public void addInterceptors(InterceptorRegistry registry) {
          registry.addInterceptor(interceptor);
        }
      };
    }

    /** Checks every {@link RateLimit} once the handler mappings exist, so bad ones stop start-up. */
    @Bean
    SmartInitializingSingleton slidingWindowRateLimitAnnotationCheck(
        ObjectProvider<RequestMappingHandlerMapping> mappings, RateLimitInterceptor interceptor) {
      return () ->
          mappings.orderedStream()
              .forEach(
                  mapping -> {
                    for (HandlerMethod handler : mapping.getHandlerMethods().values()) {
                      Method method = handler.getMethod();
                      interceptor.register(method);
                    }
                  });
    }
  }
}
