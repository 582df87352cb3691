package io.slidingwindow.spring.boot.web;

import static io.slidingwindow.spring.boot.internal.PropertyChecks.bind;

import io.slidingwindow.PlanResolver;
import io.slidingwindow.Ticker;
import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.PathFirewall;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.spring.boot.internal.InMemoryBackend;
import java.util.function.Function;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The beans that the servlet and the reactive auto-configurations both define, written once: each
 * extends this class, and each bean backs off when the application defines one of its type.
 */
abstract class SlidingWindowWebBeans {

  /** The clock of the in-memory limiters. */
  @Bean
  @ConditionalOnMissingBean
  public Ticker slidingWindowTicker() {
    return Ticker.system();
  }

  /**
   * The in-memory backend: one keyed limiter per rule on the ticker, at most {@code
   * slidingwindow.http.max-keys-per-rule} keys each, each cleaned of expired keys every {@code
   * slidingwindow.http.cleanup-interval} on a daemon thread that stops with the context. Its
   * decisions never wait.
   */
  @Bean
  @ConditionalOnMissingBean
  public RateLimiterFactory slidingWindowRateLimiterFactory(
      SlidingWindowHttpProperties properties, Ticker ticker) {
    return InMemoryBackend.cleaning(properties, ticker);
  }

  /**
   * The path firewall of {@code slidingwindow.http.path-firewall}: strict unless relaxed or turned
   * off there.
   */
  @Bean
  @ConditionalOnMissingBean
  public PathFirewall slidingWindowPathFirewall(SlidingWindowHttpProperties properties) {
    return bind(
        SlidingWindowHttpProperties.PREFIX + ".path-firewall.allow",
        () -> properties.getPathFirewall().toFirewall());
  }

  /**
   * The client address rules of {@code trusted-proxies} and {@code ipv6-prefix-length}.
   *
   * @throws IllegalArgumentException naming the property if a value is invalid
   */
  static ClientAddresses clientAddresses(SlidingWindowHttpProperties properties) {
    ClientAddresses addresses =
        bind(
            SlidingWindowHttpProperties.PREFIX + ".trusted-proxies",
            () -> ClientAddresses.trusting(properties.getTrustedProxies()));
    return bind(
        SlidingWindowHttpProperties.PREFIX + ".ipv6-prefix-length",
        () -> addresses.withIpv6PrefixLength(properties.getIpv6PrefixLength()));
  }

  /** Looks up a {@code PlanResolver} bean by name, for {@code plan-resolver}; null if none. */
  static Function<String, PlanResolver<?>> planResolverBeans(ListableBeanFactory beans) {
    Function<String, PlanResolver> named = namedBeans(beans, PlanResolver.class);
    return named::apply;
  }

  /**
   * Looks up a bean of {@code type} by name, for {@code bean:NAME} keys; null if there is none of
   * that name and type.
   */
  static <T> Function<String, T> namedBeans(ListableBeanFactory beans, Class<T> type) {
    return name ->
        beans.containsBean(name) && beans.isTypeMatch(name, type)
            ? beans.getBean(name, type)
            : null;
  }
}
