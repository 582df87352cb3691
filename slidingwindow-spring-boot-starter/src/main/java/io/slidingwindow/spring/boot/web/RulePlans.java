package io.slidingwindow.spring.boot.web;

import io.slidingwindow.Limit;
import io.slidingwindow.LimiterKeys;
import io.slidingwindow.Plan;
import io.slidingwindow.PlanResolver;
import io.slidingwindow.spring.boot.internal.PropertyChecks;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The plans of one rule, bound from {@link RulePlanProperties}: which plan each key is on, and the
 * plans themselves, checked at once so that a bad value stops start-up naming its property.
 *
 * @param plans the plans by name, in the order written
 * @param keys the plan of each key listed in {@code plan-keys}, by the key as the limiter counts it
 * @param resolverBean the name of the application's resolver bean, or null
 * @param resolver what the limiter asks, or null when the rule has no plans at all
 * @param inService the limits in service of the plans, which a run-time change alters; what the
 *     resolver's answers pass through
 */
record RulePlans(
    Map<String, Plan> plans,
    Map<String, Plan> keys,
    String resolverBean,
    PlanResolver<String> resolver,
    PlansInService inService) {

  /** No plans: every key gets the rule's limits. */
  static final RulePlans NONE =
      new RulePlans(Map.of(), Map.of(), null, null, new PlansInService(Map.of()));

  /** What decides whether a reload may keep a rule's limiter: the plans, not the bean's state. */
  record Signature(Map<String, Plan> plans, Map<String, Plan> keys, String resolverBean) {}

  Signature signature() {
    return new Signature(plans, keys, resolverBean);
  }

  /**
   * The plans of the rule at {@code prefix}.
   *
   * @param resolverBeans looks up a {@code PlanResolver} bean by name; null if there is none
   * @throws IllegalArgumentException naming the property ({@code prefix.plans.PLAN.limits[i]...},
   *     {@code prefix.plan-keys.PLAN} or {@code prefix.plan-resolver}) and the bad value
   */
  @SuppressWarnings("unchecked")
  static RulePlans of(
      String prefix, RulePlanProperties rule, Function<String, PlanResolver<?>> resolverBeans) {
    Map<String, Plan> plans = new LinkedHashMap<>();
    Map<String, PlanProperties> written = rule.getPlans() == null ? Map.of() : rule.getPlans();
    // Every request takes at least the rule's cost: a plan's limit below it would refuse them all.
    long cost = rule instanceof SlidingWindowHttpProperties.Rule r ? r.getCost() : 1;
    for (Map.Entry<String, PlanProperties> e : written.entrySet()) {
      String path = prefix + ".plans." + e.getKey();
      List<SlidingWindowHttpProperties.LimitSpec> specs =
          e.getValue() == null || e.getValue().getLimits() == null
              ? List.of()
              : e.getValue().getLimits();
      List<Limit> limits = new ArrayList<>();
      for (int i = 0; i < specs.size(); i++) {
        SlidingWindowHttpProperties.LimitSpec spec = specs.get(i);
        String at = path + ".limits[" + i + "]";
        // The spec's own toLimit: a spec made in code from a Limit (a gateway route's) gives it.
        Limit limit = spec == null ? RuleBinder.limit(at, null) : spec.toLimit(at);
        if (limit.permits() < cost) {
          throw new IllegalArgumentException(
              path
                  + ".limits["
                  + i
                  + "].permits: a plan's limit must hold the rule's cost of "
                  + cost
                  + " permits, was "
                  + limit.permits());
        }
        limits.add(limit);
      }
      if (limits.isEmpty()) {
        throw new IllegalArgumentException(path + ".limits: a plan needs at least one limit");
      }
      plans.put(e.getKey(), PropertyChecks.bind(path, () -> Plan.of(e.getKey(), limits)));
    }
    Map<String, Plan> keys = new HashMap<>();
    Map<String, List<String>> planKeys = rule.getPlanKeys() == null ? Map.of() : rule.getPlanKeys();
    for (Map.Entry<String, List<String>> e : planKeys.entrySet()) {
      String path = prefix + ".plan-keys." + e.getKey();
      Plan plan = plans.get(e.getKey());
      if (plan == null) {
        throw new IllegalArgumentException(
            path
                + ": no plan named '"
                + e.getKey()
                + "' in "
                + prefix
                + ".plans "
                + plans.keySet());
      }
      for (String key : e.getValue() == null ? List.<String>of() : e.getValue()) {
        if (key == null || key.isBlank()) {
          throw new IllegalArgumentException(path + ": a key must not be blank, was '" + key + "'");
        }
        Plan before = keys.put(LimiterKeys.bounded(key), plan);
        if (before != null && !before.equals(plan)) {
          throw new IllegalArgumentException(
              path + ": key '" + key + "' is on plan '" + before.name() + "' already");
        }
      }
    }
    String beanName = rule.getPlanResolver();
    PlanResolver<String> bean = null;
    if (beanName != null) {
      bean = (PlanResolver<String>) resolverBeans.apply(beanName);
      if (bean == null) {
        throw new IllegalArgumentException(
            prefix + ".plan-resolver: no PlanResolver bean named '" + beanName + "'");
      }
    }
    if (plans.isEmpty() && bean == null) {
      return NONE;
    }
    PlansInService inService = new PlansInService(Collections.unmodifiableMap(plans));
    return new RulePlans(
        Map.copyOf(plans), Map.copyOf(keys), beanName, resolver(keys, bean, inService), inService);
  }

  /**
   * Asks {@code bean} first, then {@code keys}; the plan found passes through {@code inService}, so
   * that a run-time change of a plan's limits reaches every key on it.
   */
  private static PlanResolver<String> resolver(
      Map<String, Plan> keys, PlanResolver<String> bean, PlansInService inService) {
    Map<String, Plan> listed = Map.copyOf(keys);
    if (bean == null) {
      return key -> inService.inService(listed.get(key));
    }
    return key -> {
      Plan plan = bean.planOf(key);
      return inService.inService(plan != null ? plan : listed.get(key));
    };
  }
}
