package io.slidingwindow.spring.boot.web;

import io.micrometer.core.instrument.MeterRegistry;
import io.slidingwindow.Ticker;
import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.EnforcementCore;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.PathFirewall;
import io.slidingwindow.http.RateLimitListener;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.spring.boot.internal.Listeners;
import io.slidingwindow.spring.internal.RateLimitAnnotations;
import io.slidingwindow.webflux.ReactiveKeyResolver;
import io.slidingwindow.webflux.ReactiveRateLimitFilter;
import io.slidingwindow.webflux.internal.RateLimitHandlerAdapter;
import io.slidingwindow.webflux.internal.ReactiveFilters;
import io.slidingwindow.webflux.internal.ReactiveKeySource;
import io.slidingwindow.webflux.internal.ReactiveKeys;
import io.slidingwindow.webflux.internal.ReactiveRateLimitAnnotations;
import java.util.function.Function;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.web.reactive.HandlerAdapter;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.server.WebFilter;

/**
 * Auto-configuration of sliding-window HTTP rate limiting for reactive (WebFlux) web applications:
 * a {@link ReactiveRateLimitFilter} that enforces {@code slidingwindow.http.rules} and {@link
 * RateLimit} on handler methods with the same keys, headers, refusals, dry-run, metrics and path
 * firewall as the servlet filter.
 *
 * <p>Every bean backs off when the application defines one of the same type: the {@link Ticker},
 * the {@link ClientAddresses} (from {@code trusted-proxies} and {@code ipv6-prefix-length}), the
 * {@link RateLimiterFactory} (the in-memory backend, or Redis when configured), the {@link
 * PathFirewall} and the filter. Listeners add up as in a servlet application. {@code
 * slidingwindow.http.enabled=false} turns it all off.
 */
@AutoConfiguration
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass(WebFilter.class)
@WhenHttpEnabled
public class SlidingWindowReactiveAutoConfiguration extends SlidingWindowWebBeans {

  /** Finds client addresses, believing X-Forwarded-For only from the trusted proxies. */
  @Bean
  @ConditionalOnMissingBean
  public ClientAddresses slidingWindowClientAddresses(SlidingWindowHttpProperties properties) {
    return clientAddresses(properties);
  }

  /**
   * The rules of {@code slidingwindow.http.rules}, checked here so that bad ones stop start-up, and
   * rebuilt when the configuration is refreshed (see {@link ReloadableRules}).
   */
  @Bean
  @ConditionalOnMissingBean(ReactiveRateLimitFilter.class)
  ReloadableRules<EnforcementCore<ReactiveKeySource>> slidingWindowReactiveRules(
      SlidingWindowHttpProperties properties,
      RateLimiterFactory limiterFactory,
      ObjectProvider<RateLimitListener> listeners,
      ObjectProvider<MeterRegistry> registry,
      ListableBeanFactory beans,
      PathFirewall pathFirewall,
      HandlerPaths handlerPaths) {
    RateLimitListener listener = Listeners.of(listeners, registry);
    Function<String, ReactiveKeyResolver> keyBeans = namedBeans(beans, ReactiveKeyResolver.class);
    return new ReloadableRules<>(
        limiterFactory,
        (bound, limiters) -> {
          EnforcementCore.Builder<ReactiveKeySource> core =
              EnforcementCore.<ReactiveKeySource>builder()
                  .limiterFactory(limiters)
                  .listener(listener)
                  .rateLimitHeaders(bound.isRateLimitHeaders())
                  .pathFirewall(pathFirewall)
                  .refusal(bound.getRefusal().toRefusal())
                  .clientKey(ReactiveKeySource::clientIp);
          for (RuleBinder.Bound rule : RuleBinder.bound(bound, handlerPaths.ignoreCase())) {
            core.rule(
                rule.rule(),
                ReactiveKeys.resolver(rule.keyProperty(), rule.key(), keyBeans),
                rule.terms().condition(ReactiveKeySource::context),
                rule.terms().cost(ReactiveKeySource::context, rule.rule().cost()));
          }
          return core.build();
        },
        properties,
        planResolverBeans(beans));
  }

  /**
   * The filter: the reloadable rules, and {@link RateLimit} on handler methods. Package-private, as
   * its rules' request type is internal.
   */
  @Bean
  @ConditionalOnMissingBean
  ReactiveRateLimitFilter slidingWindowReactiveRateLimitFilter(
      SlidingWindowHttpProperties properties,
      ClientAddresses addresses,
      RateLimiterFactory limiterFactory,
      ObjectProvider<RateLimitListener> listeners,
      ObjectProvider<MeterRegistry> registry,
      ListableBeanFactory beans,
      ReloadableRules<EnforcementCore<ReactiveKeySource>> rules) {
    RateLimitListener listener = Listeners.of(listeners, registry);
    Function<String, ReactiveKeyResolver> keyBeans = namedBeans(beans, ReactiveKeyResolver.class);
    ReactiveRateLimitAnnotations annotations =
        new ReactiveRateLimitAnnotations(
            limiterFactory,
            listener,
            properties.isRateLimitHeaders(),
            properties.isDryRun(),
            keyBeans,
            properties.getRefusal().toRefusal());
    return ReactiveFilters.filter(rules, addresses, annotations, properties.getFilterOrder());
  }

  /**
   * Counts a request by the {@link RateLimit} of the handler method the dispatcher picked, when the
   * filter could not: a web filter after it changed the request's path or method.
   */
  @Bean
  RateLimitHandlerAdapter slidingWindowRateLimitHandlerAdapter(
      ObjectProvider<ReactiveRateLimitFilter> filters, ObjectProvider<HandlerAdapter> adapters) {
    return new RateLimitHandlerAdapter(
        () -> filters.orderedStream().toList(), () -> adapters.orderedStream().toList());
  }

  /** Warns at start-up when forwarded headers are believed from any peer. */
  @Bean
  static SmartInitializingSingleton slidingWindowForwardedHeadersCheck(
      Environment environment, SlidingWindowHttpProperties properties) {
    return new ForwardedHeadersCheck(environment, properties, false);
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
   * How WebFlux's handler mappings match paths: the rules follow their case, and start-up stops if
   * the rules of a filter in service cannot follow them.
   */
  @Bean
  static HandlerPaths slidingWindowHandlerPaths(ListableBeanFactory beans) {
    return new HandlerPaths(
        HandlerPaths.reactiveMappings(beans),
        () ->
            beans.getBeansOfType(ReactiveRateLimitFilter.class, false, true).entrySet().stream()
                .map(
                    e ->
                        new HandlerPaths.Served(
                            "ReactiveRateLimitFilter bean '" + e.getKey() + "'",
                            e.getValue().rules()))
                .toList());
  }

  /** Warns when the server is a Reactor Netty release that can leave a connection unread. */
  @Bean
  static SmartInitializingSingleton slidingWindowReactorNettyCheck() {
    return new ReactorNettyCheck();
  }

  /**
   * Checks every {@link RateLimit} once the handler mappings exist, so bad ones and names taken
   * twice (by two annotations, or by an annotation and a filter rule) stop start-up.
   */
  @Bean
  static SmartInitializingSingleton slidingWindowReactiveRateLimitAnnotationCheck(
      ObjectProvider<RequestMappingHandlerMapping> mappings,
      ObjectProvider<ReactiveRateLimitFilter> filters,
      ObjectProvider<ReloadableRules<EnforcementCore<ReactiveKeySource>>> rules) {
    return () ->
        filters
            .orderedStream()
            .forEach(
                filter -> {
                  ReactiveRateLimitAnnotations annotations = ReactiveFilters.annotations(filter);
                  if (annotations == null) {
                    return;
                  }
                  for (HttpRule rule : filter.rules()) {
                    annotations.reserve(rule.name(), RateLimitAnnotations.ruleOwner(rule.name()));
                  }
                  annotations.register(mappings.orderedStream().toList());
                  rules.ifAvailable(
                      reloadable -> reloadable.checkNamesWith(annotations::checkRuleName));
                });
  }
}
