package io.slidingwindow.internal;

import io.slidingwindow.Limit;
import io.slidingwindow.Plan;
import java.util.List;

/**
 * A limit set as a planned key's state uses it: the plan (null for the limiter's default limits),
 * its limits and their shared window figures, computed once per plan and limiter. Immutable.
 */
public final class PlanLimits {

  private final Plan plan;
  private final List<Limit> limits;
  private final Window.Config[] configs;
  private final long largestGrantable;
  private final long largestPermits;

  /**
   * The figures of {@code plan}'s limits, or of {@code defaults} when {@code plan} is null.
   *
   * @throws IllegalArgumentException if a limit's runs would not fit in memory
   */
  PlanLimits(Plan plan, List<Limit> defaults, boolean countRefused, long anchorEpochNanos) {
    this.plan = plan;
    this.limits = plan == null ? defaults : plan.limits();
    this.configs = KeyLimits.configs(limits, countRefused, anchorEpochNanos, true);
    this.largestGrantable = Permits.largestGrantable(limits);
    this.largestPermits = Permits.largestPermits(limits);
  }

  /** The plan's name, or null for the default limits. */
  public String name() {
    return plan == null ? null : plan.name();
  }

  /** The plan, or null for the default limits. */
  public Plan plan() {
    return plan;
  }

  /** The limits. */
  public List<Limit> limits() {
    return limits;
  }

  /** The largest request every limit could grant. */
  public long largestGrantable() {
    return largestGrantable;
  }

  /** The largest limit's permits: no refund may exceed it. */
  public long largestPermits() {
    return largestPermits;
  }

  Window.Config config(int i) {
    return configs[i];
  }

  int size() {
    return configs.length;
  }

  @Override
  public String toString() {
    return (plan == null ? "default" : plan.name()) + limits;
  }
}
