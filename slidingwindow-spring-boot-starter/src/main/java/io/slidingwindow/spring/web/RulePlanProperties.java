package io.slidingwindow.spring.web;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
}
