package io.slidingwindow.spring.boot.web;

import io.slidingwindow.PlanResolver;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The plans of one rule, bound from {@code slidingwindow.http.rules.NAME}: {@code plans}, {@code
 * plan-keys} and {@code plan-resolver} (see {@link PlanProperties}). A key gets the limits of its
 * plan, and the rule's own {@code limits} when it is on none. Mutable, as Spring binding needs.
 */
public class RulePlanProperties {

  /** The plans by name, each with its own limits (see {@link PlanProperties}). */
  private Map<String, PlanProperties> plans = new LinkedHashMap<>();

  /**
   * Keys by plan name: the keys on each plan, as the rule's key makes them ({@code
   * custom:demo-key-1}, {@code principal:alice}, {@code ip:192.0.2.7}). A name not in plans stops
   * start-up.
   */
  private Map<String, List<String>> planKeys = new LinkedHashMap<>();

  /**
   * The name of a {@code PlanResolver<String>} bean asked first for each key; a null answer leaves
   * the key to plan-keys, then to the rule's limits.
   */
  private String planResolver;

  public Map<String, PlanProperties> getPlans() {
    return plans;
  }

  public void setPlans(Map<String, PlanProperties> plans) {
    this.plans = plans;
  }

  public Map<String, List<String>> getPlanKeys() {
    return planKeys;
  }

  public void setPlanKeys(Map<String, List<String>> planKeys) {
    this.planKeys = planKeys;
  }

  public String getPlanResolver() {
    return planResolver;
  }

  public void setPlanResolver(String planResolver) {
    this.planResolver = planResolver;
  }

  /**
   * The resolver these properties describe, checked as the starter's rules are: the bean named by
   * plan-resolver asked first, then plan-keys. Public for the project's other Spring modules (the
   * gateway's routes); applications have no need of it.
   *
   * @param prefix the path of these properties, such as {@code slidingwindow.http.rules.reports}
   * @param resolverBeans looks up a {@code PlanResolver} bean by name; null if there is none
   * @return the resolver, or null when there are no plans and no resolver bean
   * @throws IllegalArgumentException naming the property ({@code prefix.plans.PLAN.limits[i]...},
   *     {@code prefix.plan-keys.PLAN} or {@code prefix.plan-resolver}) and the bad value
   */
  public PlanResolver<String> toPlanResolver(
      String prefix, Function<String, PlanResolver<?>> resolverBeans) {
    return RulePlans.of(prefix, this, resolverBeans).resolver();
  }
}
