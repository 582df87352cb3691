package io.slidingwindow.gateway;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.PlanResolver;
import io.slidingwindow.http.RateLimiterFactory;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The limiter of each route: made by the factory from the route's terms when the route is first
 * bound, and made again only when a new binding changes its terms. Thread-safe.
 */
final class RouteLimiters {

  private final RateLimiterFactory factory;
  private final RateLimiterFactory local;
  private final Function<String, PlanResolver<?>> resolverBeans;
  private final Map<String, RouteLimiter> routes = new ConcurrentHashMap<>();

  /**
   * @param factory makes each route's keyed limiter, under the rule name {@code gateway.ROUTE}
   * @param local makes each route's in-memory limiter of {@code FailurePolicy.LOCAL}
   * @param resolverBeans looks up a route's {@code plan-resolver} bean by name; null if none
   */
  RouteLimiters(
      RateLimiterFactory factory,
      RateLimiterFactory local,
      Function<String, PlanResolver<?>> resolverBeans) {
    this.factory = factory;
    this.local = local;
    this.resolverBeans = resolverBeans;
  }

  /**
   * The route's limiter for {@code config}, rebuilt only if its limits or plans changed.
   *
   * @throws IllegalArgumentException naming the route and the argument if the terms are bad, or the
   *     backend cannot enforce them
   */
  RouteLimiter of(String routeId, SlidingWindowRateLimiter.Config config) {
    RouteLimiter current = routes.get(routeId);
    if (current != null && current.config == config) {
      return current;
    }
    RouteTerms terms = RouteTerms.of(routeId, config, resolverBeans);
    return routes.compute(
        routeId,
        (id, existing) -> {
          if (existing != null && existing.terms.signature().equals(terms.signature())) {
            return existing.boundTo(config);
          }
          String rule = "gateway." + id;
          List<Limit> limits = terms.limits();
          KeyedRateLimiter<String> limiter = create(id, terms);
          if (limiter == null) {
            throw new IllegalArgumentException(
                "route " + id + ": the limiter factory returned no limiter for " + limits);
          }
          return new RouteLimiter(
              config,
              terms,
              GatewayHeaders.policyNames(id, limits),
              limiter,
              () -> local.create(rule, limits, false, terms.plans()));
        });
  }

  /**
   * The limiter the factory makes for a route's terms.
   *
   * @throws IllegalArgumentException naming the route's plans argument if the backend cannot give
   *     keys plans
   */
  private KeyedRateLimiter<String> create(String routeId, RouteTerms terms) {
    try {
      return factory.create("gateway." + routeId, terms.limits(), false, terms.plans());
    } catch (UnsupportedOperationException e) {
      throw new IllegalArgumentException(
          "route "
              + routeId
              + ": "
              + SlidingWindowRateLimiter.CONFIGURATION_PROPERTY_NAME
              + ".plans: "
              + e.getMessage(),
          e);
    }
  }
}
