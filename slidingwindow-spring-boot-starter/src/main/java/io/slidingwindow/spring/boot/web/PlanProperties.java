package io.slidingwindow.spring.boot.web;

import java.util.ArrayList;
import java.util.List;

/**
 * One plan of a rule, bound from {@code slidingwindow.http.rules.NAME.plans.PLAN}: the limits of
 * the keys on it, in the shape of the rule's own {@code limits}.
 *
 * <pre>{@code
 * slidingwindow.http.rules.reports:
 *   limits: [{ permits: 2, window: 10s }]      # keys on no plan
 *   plans:
 *     free: { limits: [{ permits: 5, window: 10s }] }
 *     pro:  { limits: [{ permits: 20, window: 10s }] }
 *   plan-keys:
 *     free: [custom:demo-key-1]
 *     pro:  [custom:demo-key-2]
 * }</pre>
 *
 * <p>Mutable, as Spring binding needs; read only at start-up and on reload.
 */
public class PlanProperties {

  /** The limits of the keys on this plan, all checked for every request; at least one. */
  private List<SlidingWindowHttpProperties.LimitSpec> limits = new ArrayList<>();

  public List<SlidingWindowHttpProperties.LimitSpec> getLimits() {
    return limits;
  }

  public void setLimits(List<SlidingWindowHttpProperties.LimitSpec> limits) {
    this.limits = limits;
  }
}
