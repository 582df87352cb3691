package io.slidingwindow.gateway;

import io.micrometer.core.instrument.MeterRegistry;
import io.slidingwindow.PlanResolver;
import io.slidingwindow.Ticker;
import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.PathFirewall;
import io.slidingwindow.http.RateLimitListener;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.spring.boot.internal.Listeners;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.cloud.gateway.config.GatewayProperties;
import org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.core.env.Environment;
import org.springframework.web.server.WebFilter;

/**
 * Registers the {@link SlidingWindowRateLimiter} bean {@code slidingWindowRateLimiter} when Spring
 * Cloud Gateway (WebFlux) is on the class path, so that a route's {@code RequestRateLimiter} filter
 * can name it ({@code rate-limiter: "#{@slidingWindowRateLimiter}"}); as the only {@code
 * RateLimiter} bean, or the primary one, it is also the filter's default.
 *
 * <p>Each route's keyed limiter comes from the application's {@link RateLimiterFactory} bean when
 * there is one: the starter's Redis factory when {@code slidingwindow.redis.*} or {@code
 * spring.data.redis.*} is configured (with {@code slidingwindow.redis.command-timeout} and {@code
 * on-failure}), or the application's own. Otherwise the limits stay in memory, with at most {@code
 * slidingwindow.gateway.max-keys-per-route} keys per route. The choice is logged at start-up.
 *
 * <p>The limits and plans of the routes and default filters written in the gateway's properties are
 * checked once every bean exists: a bad one stops start-up naming the route and the argument.
 *
 * <p>Runs after the starter's Redis configuration and before the gateway's, whose {@code
 * RequestRateLimiter} filter exists only when a {@code RateLimiter} bean does. Backs off for an
 * application-defined {@link SlidingWindowRateLimiter}; {@code slidingwindow.gateway.enabled=false}
 * turns it off.
 */
@AutoConfiguration(
    afterName = "io.slidingwindow.spring.boot.redis.SlidingWindowRedisAutoConfiguration",
    beforeName = "org.springframework.cloud.gateway.config.GatewayAutoConfiguration")
@ConditionalOnClass(AbstractRateLimiter.class)
@ConditionalOnProperty(
    prefix = SlidingWindowGatewayProperties.PREFIX,
    name = "enabled",
    havingValue = "true",
    matchIfMissing = true)
@EnableConfigurationProperties(SlidingWindowGatewayProperties.class)
public class SlidingWindowGatewayAutoConfiguration {

  private static final Logger LOG =
      LoggerFactory.getLogger(SlidingWindowGatewayAutoConfiguration.class);

  /**
   * The limiter, on the application's limiter factory or in memory. Primary, so that it stays the
   * {@code RequestRateLimiter} filter's default when Spring Data Redis makes the gateway add its
   * own {@code redisRateLimiter} bean (a route can still name that one).
   */
  @Bean
  @Primary
  @ConditionalOnMissingBean
  public SlidingWindowRateLimiter slidingWindowRateLimiter(
      SlidingWindowGatewayProperties properties,
      ObjectProvider<RateLimiterFactory> factories,
      ObjectProvider<Ticker> ticker,
      ObjectProvider<ConfigurationService> configurationService,
      ObjectProvider<MeterRegistry> registry,
      BeanFactory beans) {
    RateLimiterFactory factory = factories.getIfUnique();
    if (factory == null) {
      factory =
          property(
              "max-keys-per-route",
              () ->
                  RateLimiterFactory.inMemory(
                      ticker.getIfAvailable(Ticker::system), properties.getMaxKeysPerRoute()));
      LOG.info("slidingwindow: gateway rate limits in memory (no Redis configured)");
    } else {
      LOG.info(
          "slidingwindow: gateway rate limits through the application's RateLimiterFactory bean"
              + " (the starter's Redis backend when Redis is configured)");
    }
    SlidingWindowRateLimiter.Builder limiter =
        SlidingWindowRateLimiter.builder()
            .factory(factory)
            .local(
                RateLimiterFactory.inMemory(
                    ticker.getIfAvailable(Ticker::system), properties.getMaxKeysPerRoute()))
            .headers(properties.isRateLimitHeaders())
            .resolverBeans(planResolvers(beans));
    property("timeout", () -> limiter.timeout(properties.getTimeout()));
    property("on-failure", () -> limiter.onFailure(properties.getOnFailure()));
    configurationService.ifAvailable(limiter::configurationService);
    registry.ifUnique(limiter::meterRegistry);
    return limiter.build();
  }

  /**
   * Checks the limits and plans of the routes written in the gateway's properties at start-up, so
   * that a bad one stops start-up naming the route and the argument.
   */
  @Bean
  static SmartInitializingSingleton slidingWindowGatewayRouteCheck(
      ObjectProvider<GatewayProperties> gateway, BeanFactory beans) {
    return new GatewayRouteCheck(gateway, planResolvers(beans));
  }

  /**
   * Tells the starter when the gateway's {@code Path} predicates match regardless of case, so that
   * the rules of {@code slidingwindow.http.rules} over paths do too (see {@link GatewayPathCase}).
   */
  @Bean
  static GatewayPathCase slidingWindowGatewayPathCase(BeanFactory beans) {
    return GatewayPathCase.of(beans);
  }

  /**
   * The path firewall in front of routing (see {@link GatewayPathFirewall}): the application's
   * {@link PathFirewall} bean (the starter's, from {@code slidingwindow.http.path-firewall.*}), or,
   * with the starter's web beans off ({@code slidingwindow.http.enabled=false}), the one those
   * properties describe: strict unless they relax it.
   */
  @Bean
  @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
  WebFilter slidingWindowGatewayPathFirewall(
      ObjectProvider<PathFirewall> firewall,
      ObjectProvider<RateLimitListener> listeners,
      ObjectProvider<MeterRegistry> registry,
      Environment environment) {
    return new GatewayPathFirewall(
        firewall.getIfUnique(() -> configuredFirewall(Binder.get(environment))),
        Listeners.of(listeners, registry));
  }

  /**
   * Writes the {@code Host} header in lower case and without a trailing dot before routing (see
   * {@link GatewayHostName}), so that a limited route's {@code Host} predicate takes the host
   * however it is spelled.
   */
  @Bean
  @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
  WebFilter slidingWindowGatewayHostName() {
    return new GatewayHostName();
  }

  /**
   * The gateway's {@code Host} predicate with its patterns in lower case and, for a route whose
   * patterns name no port, the header's port ignored (see {@link GatewayHostPredicate}), for routes
   * from every source.
   */
  @Bean
  static BeanPostProcessor slidingWindowGatewayHostPredicate() {
    return GatewayHostPredicate.replacing();
  }

  /** The firewall of {@code slidingwindow.http.path-firewall.*}, read without the starter. */
  private static PathFirewall configuredFirewall(Binder binder) {
    String prefix = "slidingwindow.http.path-firewall.";
    if (!binder.bind(prefix + "enabled", Boolean.class).orElse(true)) {
      return PathFirewall.off();
    }
    return PathFirewall.allowing(
        binder
            .bind(prefix + "allow", Bindable.listOf(PathFirewall.Allowance.class))
            .orElse(List.of())
            .toArray(new PathFirewall.Allowance[0]));
  }

  /** Looks up a route's {@code plan-resolver} bean by name; null if there is no such bean. */
  private static Function<String, PlanResolver<?>> planResolvers(BeanFactory beans) {
    return name ->
        beans.containsBean(name) && beans.isTypeMatch(name, PlanResolver.class)
            ? beans.getBean(name, PlanResolver.class)
            : null;
  }

  /**
   * The routes' default key: the authenticated user, else the client address ({@link
   * GatewayKeys#principalOrAddress}, with the starter's {@link ClientAddresses}: trusted proxies
   * and IPv6 prefix from {@code slidingwindow.http.*}). The gateway's own default refuses anonymous
   * requests with 403 instead. Backs off for any {@code KeyResolver} bean of the application.
   */
  @Bean
  @ConditionalOnMissingBean(KeyResolver.class)
  public KeyResolver slidingWindowKeyResolver(ObjectProvider<ClientAddresses> addresses) {
    return GatewayKeys.principalOrAddress(addresses.getIfAvailable(ClientAddresses::direct));
  }

  private static <T> T property(String name, Supplier<T> call) {
    try {
      return call.get();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          SlidingWindowGatewayProperties.PREFIX + "." + name + ": " + e.getMessage(), e);
    }
  }
}
