package io.slidingwindow.spring.boot.web;

import io.micrometer.core.instrument.MeterRegistry;
import io.slidingwindow.Ticker;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.PathFirewall;
import io.slidingwindow.http.RateLimitListener;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.servlet.ClientIpResolver;
import io.slidingwindow.servlet.KeyResolver;
import io.slidingwindow.servlet.RateLimitEnforcer;
import io.slidingwindow.servlet.RateLimitFilter;
import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.spring.boot.internal.Listeners;
import io.slidingwindow.spring.internal.RateLimitAnnotations;
import io.slidingwindow.webmvc.RateLimitInterceptor;
import io.slidingwindow.webmvc.internal.RateLimitInterceptors;
import jakarta.servlet.DispatcherType;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * Auto-configuration of sliding-window HTTP rate limiting for servlet web applications.
 *
 * <p>Every bean backs off when the application defines one of the same type: the {@link Ticker}
 * (the system clock), the {@link ClientIpResolver} (from {@code trusted-proxies}), the {@link
 * RateLimiterFactory} (the in-memory backend), the {@link PathFirewall} (from {@code
 * path-firewall}), the {@link RateLimitEnforcer} (the rules of {@code slidingwindow.http.rules}),
 * the filter (a {@link RateLimitFilter} or its registration) and the {@link RateLimitInterceptor}
 * behind {@link RateLimit}. Listeners add up instead: the enforcer and the interceptor tell every
 * {@link RateLimitListener} bean, in order, and the Micrometer counters as well when a {@link
 * MeterRegistry} is present (unless the application defines its own {@link
 * MicrometerRateLimitListener}). Rule names must be unique across the filter's rules and every
 * {@link RateLimit}; a collision stops start-up. {@code slidingwindow.http.enabled=false} turns it
 * all off.
 */
@AutoConfiguration
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(RateLimitFilter.class)
@WhenHttpEnabled
public class SlidingWindowAutoConfiguration extends SlidingWindowWebBeans {

  /** Finds client addresses, believing X-Forwarded-For only from the trusted proxies. */
  @Bean
  @ConditionalOnMissingBean
  public ClientIpResolver slidingWindowClientIpResolver(SlidingWindowHttpProperties properties) {
    return ClientIpResolver.of(clientAddresses(properties));
  }

  /**
   * The application's listener beans in order, then Micrometer counters if there is a meter
   * registry and the application has not defined a {@link MicrometerRateLimitListener} itself.
   */
  static RateLimitListener listener(
      ObjectProvider<RateLimitListener> listeners, ObjectProvider<MeterRegistry> registry) {
    return Listeners.of(listeners, registry);
  }

  /**
   * The rules of {@code slidingwindow.http.rules}, checked here so that bad ones stop start-up, and
   * rebuilt when the configuration is refreshed (see {@link ReloadableRules}).
   */
  @Bean
  @ConditionalOnMissingBean(RateLimitEnforcer.class)
  ReloadableRules<RateLimitEnforcer> slidingWindowServletRules(
      SlidingWindowHttpProperties properties,
      ClientIpResolver clientIp,
      RateLimiterFactory limiterFactory,
      ObjectProvider<RateLimitListener> listeners,
      ObjectProvider<MeterRegistry> registry,
      ListableBeanFactory beans,
      PathFirewall pathFirewall,
      HandlerPaths handlerPaths) {
    RateLimitListener listener = listener(listeners, registry);
    return new ReloadableRules<>(
        limiterFactory,
        (bound, limiters) ->
            RuleBinder.addRules(
                    RateLimitEnforcer.builder(),
                    bound,
                    clientIp,
                    namedBeans(beans, KeyResolver.class),
                    handlerPaths.ignoreCase())
                .limiterFactory(limiters)
                .listener(listener)
                .rateLimitHeaders(bound.isRateLimitHeaders())
                .pathFirewall(pathFirewall)
                .refusal(bound.getRefusal().toRefusal())
                .clientIp(clientIp)
                .build(),
        properties,
        planResolverBeans(beans));
  }

  /**
   * The rules in service, reloaded with the filter's: it applies to each request the rules the
   * filter applied to it, so that code calling it besides the filter counts a request once by each
   * rule, across reloads ({@link RateLimitEnforcer#following}).
   */
  @Bean
  @ConditionalOnMissingBean
  public RateLimitEnforcer slidingWindowRateLimitEnforcer(
      ReloadableRules<RateLimitEnforcer> rules) {
    return RateLimitEnforcer.following(rules);
  }

  /**
   * Registers the filter on every path, for the dispatches of {@code filter-dispatcher-types}
   * (requests alone by default), over the enforcer bean: the starter's follows the reloaded rules,
   * an application's own is applied as it is; either counts a request once by each rule across its
   * dispatches. Backs off for a {@link RateLimitFilter} bean or a registration of one (what Boot's
   * {@code @ConditionalOnMissingFilterBean} checks; that annotation moved package in Boot 4).
   *
   * @throws IllegalArgumentException naming the property and its value if the dispatches leave out
   *     REQUEST, the client's own request
   */
  @Bean
  @ConditionalOnMissingBean(
      value = RateLimitFilter.class,
      parameterizedContainer = FilterRegistrationBean.class)
  public FilterRegistrationBean<RateLimitFilter> slidingWindowRateLimitFilter(
      RateLimitEnforcer enforcer, SlidingWindowHttpProperties properties) {
    RateLimitFilter filter = new RateLimitFilter(enforcer);
    FilterRegistrationBean<RateLimitFilter> registration = new FilterRegistrationBean<>(filter);
    registration.setName("slidingWindowRateLimitFilter");
    registration.addUrlPatterns("/*");
    registration.setOrder(properties.getFilterOrder());
    registration.setDispatcherTypes(dispatcherTypes(properties.getFilterDispatcherTypes()));
    return registration;
  }

  /** {@code types} as the servlet API names them; REQUEST must be one. */
  static EnumSet<DispatcherType> dispatcherTypes(
      Set<org.springframework.boot.web.servlet.DispatcherType> types) {
    EnumSet<DispatcherType> servlet = EnumSet.noneOf(DispatcherType.class);
    if (types != null) {
      types.forEach(type -> servlet.add(DispatcherType.valueOf(type.name())));
    }
    if (!servlet.contains(DispatcherType.REQUEST)) {
      throw new IllegalArgumentException(
          SlidingWindowHttpProperties.PREFIX
              + ".filter-dispatcher-types must include REQUEST, the client's own request, or no"
              + " request is limited; was "
              + types
              + ". List the other dispatches beside it, such as [REQUEST, ERROR]");
    }
    return servlet;
  }

  /** Warns at start-up when forwarded headers are believed from any peer. */
  @Bean
  static SmartInitializingSingleton slidingWindowForwardedHeadersCheck(
      Environment environment, SlidingWindowHttpProperties properties) {
    return new ForwardedHeadersCheck(environment, properties, true);
  }

  /**
   * Warns at start-up when a rule names the actuator's paths while the actuator has a port of its
   * own, where rules are not applied.
   */
  @Bean
  static SmartInitializingSingleton slidingWindowManagementPortCheck(
      Environment environment, SlidingWindowHttpProperties properties) {
    return new ManagementPortCheck(environment, properties);
  }

  /**
   * How Spring MVC's handler mappings match paths: the rules follow their case, and start-up stops
   * if rules in service cannot follow them.
   */
  @Bean
  static HandlerPaths slidingWindowHandlerPaths(ListableBeanFactory beans) {
    return new HandlerPaths(HandlerPaths.servletMappings(beans), () -> servedRules(beans));
  }

  /**
   * The rules of every enforcer that serves requests: the enforcer beans, and those of the rate
   * limit filters, registered or not.
   */
  static List<HandlerPaths.Served> servedRules(ListableBeanFactory beans) {
    Map<RateLimitEnforcer, String> enforcers = new IdentityHashMap<>();
    beans
        .getBeansOfType(RateLimitEnforcer.class, false, true)
        .forEach((name, e) -> enforcers.putIfAbsent(e, "RateLimitEnforcer bean '" + name + "'"));
    beans
        .getBeansOfType(RateLimitFilter.class, false, true)
        .forEach(
            (name, f) ->
                enforcers.putIfAbsent(f.enforcer(), "RateLimitFilter bean '" + name + "'"));
    beans
        .getBeansOfType(FilterRegistrationBean.class, false, true)
        .forEach(
            (name, registration) -> {
              if (registration.getFilter() instanceof RateLimitFilter filter) {
                enforcers.putIfAbsent(filter.enforcer(), "filter of bean '" + name + "'");
              }
            });
    List<HandlerPaths.Served> served = new ArrayList<>();
    enforcers.forEach((enforcer, by) -> served.add(new HandlerPaths.Served(by, enforcer.rules())));
    return served;
  }

  /** {@link RateLimit} on Spring MVC handler methods. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
  @ConditionalOnClass(WebMvcConfigurer.class)
  static class RateLimitAnnotationConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RateLimitInterceptor slidingWindowRateLimitInterceptor(
        RateLimiterFactory limiterFactory,
        ObjectProvider<RateLimitListener> listeners,
        ObjectProvider<MeterRegistry> registry,
        ClientIpResolver clientIp,
        SlidingWindowHttpProperties properties,
        ListableBeanFactory beans) {
      return RateLimitInterceptor.builder()
          .limiterFactory(limiterFactory)
          .listener(listener(listeners, registry))
          .clientIp(clientIp)
          .rateLimitHeaders(properties.isRateLimitHeaders())
          .defaultDryRun(properties.isDryRun())
          .keyResolverBeans(namedBeans(beans, KeyResolver.class))
          .refusal(properties.getRefusal().toRefusal())
          .build();
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

    /**
     * Checks every {@link RateLimit} once the handler mappings exist, so bad ones and names taken
     * twice (by two annotations, or by an annotation and a filter rule) stop start-up.
     */
    @Bean
    SmartInitializingSingleton slidingWindowRateLimitAnnotationCheck(
        ObjectProvider<RequestMappingHandlerMapping> mappings,
        ObjectProvider<RateLimitEnforcer> enforcers,
        ObjectProvider<ReloadableRules<RateLimitEnforcer>> rules,
        RateLimitInterceptor interceptor) {
      return () -> {
        rules.ifAvailable(
            reloadable ->
                reloadable.checkNamesWith(
                    name -> RateLimitInterceptors.checkRuleName(interceptor, name)));
        enforcers
            .orderedStream()
            .forEach(
                enforcer -> {
                  for (HttpRule rule : enforcer.rules()) {
                    RateLimitInterceptors.reserve(
                        interceptor, rule.name(), RateLimitAnnotations.ruleOwner(rule.name()));
                  }
                });
        mappings
            .orderedStream()
            .forEach(
                mapping -> {
                  for (HandlerMethod handler : mapping.getHandlerMethods().values()) {
                    RateLimitInterceptors.register(interceptor, handler.getMethod());
                  }
                });
      };
    }
  }
}
