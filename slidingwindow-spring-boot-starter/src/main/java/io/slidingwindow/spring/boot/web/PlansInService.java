package io.slidingwindow.spring.boot.web;

import io.slidingwindow.Limit;
import io.slidingwindow.Plan;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The limits in service of one rule's plans: the configuration's, and the changes of a plan's
 * limits made at run time ({@link ReloadableRules#changePlan}). The rule's resolver passes every
 * plan it finds through {@link #inService(Plan)}, so a change reaches every key on the plan by its
 * name, however the key was put on it ({@code plan-keys} or the {@code plan-resolver} bean).
 * Thread-safe: changes are serialized, and {@link #inService(Plan)} reads without a lock.
 */
final class PlansInService {

  /** The plans of the configuration, in the order written. */
  private final Map<String, Plan> configured;

  /** The plans changed at run time, by name; copied on write. */
  private volatile Map<String, Plan> changed = Map.of();

  PlansInService(Map<String, Plan> configured) {
    this.configured = configured;
  }

  /** The plan in service in place of {@code resolved} (null: none): a run-time change, if any. */
  Plan inService(Plan resolved) {
    Map<String, Plan> now = changed;
    if (resolved == null || now.isEmpty()) {
      return resolved;
    }
    return now.getOrDefault(resolved.name(), resolved);
  }

  /** The plans of the configuration with the limits in service, in the order written. */
  Map<String, Plan> plans() {
    Map<String, Plan> now = changed;
    Map<String, Plan> plans = new LinkedHashMap<>();
    configured.forEach((name, plan) -> plans.put(name, now.getOrDefault(name, plan)));
    return plans;
  }

  /** Whether plan {@code name}'s limits were changed at run time. */
  boolean isChanged(String name) {
    return changed.containsKey(name);
  }

  /** The configuration's plan named {@code name}, or null. */
  Plan configured(String name) {
    return configured.get(name);
  }

  /**
   * Puts {@code limits} in service for plan {@code name}, which the configuration has.
   *
   * @return the plan in service before
   */
  synchronized Plan change(String name, List<Limit> limits) {
    Plan before = plans().get(name);
    Plan after = Plan.of(name, limits);
    Map<String, Plan> next = new LinkedHashMap<>(changed);
    if (after.equals(configured.get(name))) {
      next.remove(name);
    } else {
      next.put(name, after);
    }
    changed = Map.copyOf(next);
    return before;
  }

  /**
   * Drops every run-time change: the configuration's limits are in service again.
   *
   * @return the plans that were changed, with their run-time limits
   */
  synchronized Map<String, Plan> clear() {
    Map<String, Plan> dropped = changed;
    changed = Map.of();
    return dropped;
  }
}
