package io.slidingwindow.gateway;

import io.slidingwindow.Limit;
import io.slidingwindow.PlanResolver;
import io.slidingwindow.spring.boot.web.PlanProperties;
import io.slidingwindow.spring.boot.web.SlidingWindowHttpProperties.LimitSpec;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * One route's terms, checked: its default limits, the resolver of its plans (null without plans),
 * and what decides whether a rebound route may keep its limiter.
 *
 * @param limits the limits of a key on no plan
 * @param plans what the route's limiter asks for a key's plan, or null when the route has none
 * @param signature equal for two bindings of the same terms, whatever the resolver bean's state
 */
record RouteTerms(List<Limit> limits, PlanResolver<String> plans, Signature signature) {

  /** The written terms: limits, each plan's limits, the keys on each plan and the bean's name. */
  record Signature(
      List<Limit> limits,
      Map<String, List<Limit>> plans,
      Map<String, List<String>> planKeys,
      String resolverBean) {}

  /**
   * The terms of {@code config} on route {@code routeId}.
   *
   * @param resolverBeans looks up a {@code PlanResolver} bean by name; null if there is none
   * @throws IllegalArgumentException naming the route and the argument ({@code
   *     sliding-window-rate-limiter.plan-keys.gold: no plan named 'gold' ...}) and the bad value
   */
  static RouteTerms of(
      String routeId,
      SlidingWindowRateLimiter.Config config,
      Function<String, PlanResolver<?>> resolverBeans) {
    List<Limit> limits = config.limits(routeId);
    PlanResolver<String> plans;
    try {
      plans =
          config.toPlanResolver(
              SlidingWindowRateLimiter.CONFIGURATION_PROPERTY_NAME, resolverBeans);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("route " + routeId + ": " + e.getMessage(), e);
    }
    Map<String, List<Limit>> planLimits = new LinkedHashMap<>();
    if (plans != null && config.getPlans() != null) {
      config
          .getPlans()
          .forEach((name, plan) -> planLimits.put(name, limitsOf(routeId, name, plan)));
    }
    Map<String, List<String>> planKeys = new LinkedHashMap<>();
    if (plans != null && config.getPlanKeys() != null) {
      config
          .getPlanKeys()
          .forEach(
              (name, keys) -> planKeys.put(name, keys == null ? List.of() : List.copyOf(keys)));
    }
    return new RouteTerms(
        limits,
        plans,
        new Signature(
            limits, Map.copyOf(planLimits), Map.copyOf(planKeys), config.getPlanResolver()));
  }

  /** A plan's limits, already checked by {@code toPlanResolver}. */
  private static List<Limit> limitsOf(String routeId, String name, PlanProperties plan) {
    String prefix =
        "route "
            + routeId
            + ": "
            + SlidingWindowRateLimiter.CONFIGURATION_PROPERTY_NAME
            + ".plans."
            + name
            + ".limits";
    List<LimitSpec> specs = plan.getLimits();
    Limit[] limits = new Limit[specs.size()];
    for (int i = 0; i < limits.length; i++) {
      limits[i] = specs.get(i).toLimit(prefix + "[" + i + "]");
    }
    return List.of(limits);
  }
}
