package io.slidingwindow.internal;

import io.slidingwindow.Limit;
import io.slidingwindow.Plan;
import io.slidingwindow.PlanResolver;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The plans of an in-process keyed limiter: asks the resolver which plan a key is on, at most once
 * per key and resolution, and keeps each plan's window figures (computed once per plan).
 *
 * <p>Resolutions. Every key state records the generation at which its plan was resolved; {@link
 * #refresh} starts a new generation, so that every key asks again on its next operation (one
 * volatile read per operation tells). A key evicted and tracked again starts unplanned, and asks
 * again: its windows were empty, so nothing is lost.
 *
 * <p>Plans are kept by equality, at most {@value #MAX_PLANS} of them; a resolver that returns more
 * distinct plans gets their figures computed per resolution instead. Thread-safe.
 *
 * @param <K> the key type
 */
public final class Planner<K> {

  /** The most plans whose figures are kept. */
  static final int MAX_PLANS = 1024;

  private final PlanResolver<K> resolver;
  private final List<Limit> defaultLimits;
  private final boolean countRefused;
  private final long anchorEpochNanos;
  private final PlanLimits defaults;
  private final ConcurrentHashMap<Plan, PlanLimits> plans = new ConcurrentHashMap<>();
  private final AtomicInteger generation = new AtomicInteger();

  /**
   * Plans from {@code resolver}, {@code defaultLimits} for keys on none.
   *
   * @throws IllegalArgumentException if a default limit's runs would not fit in memory
   */
  public Planner(
      PlanResolver<K> resolver,
      List<Limit> defaultLimits,
      boolean countRefused,
      long anchorEpochNanos) {
    this.resolver = resolver;
    this.defaultLimits = defaultLimits;
    this.countRefused = countRefused;
    this.anchorEpochNanos = anchorEpochNanos;
    this.defaults = new PlanLimits(null, defaultLimits, countRefused, anchorEpochNanos);
  }

  /** A new, unplanned key state whose clock starts at {@code start}. */
  public KeyLimits newState(long start) {
    return new PlannedLimits(start);
  }

  /** Makes every key ask the resolver again on its next operation. */
  public void refresh() {
    generation.incrementAndGet();
  }

  /**
   * Brings {@code state}, the state of {@code key}, to the key's current plan at time {@code now}
   * (asking the resolver if this resolution has not), and returns that plan. Holds the key's lock.
   *
   * @throws IllegalArgumentException if the resolver's plan has a limit whose runs cannot fit
   */
  public PlanLimits ensure(KeyLimits state, K key, long now) {
    PlannedLimits planned = (PlannedLimits) state;
    int g = generation.get();
    if (!planned.isPlannedAt(g)) {
      planned.replan(resolve(key), countRefused, g, now);
    }
    return planned.plan();
  }

  /** The plan of {@code key} now, asking the resolver; for keys that are not tracked. */
  public PlanLimits resolve(K key) {
    Plan plan = resolver.planOf(key);
    if (plan == null) {
      return defaults;
    }
    PlanLimits known = plans.get(plan);
    if (known != null) {
      return known;
    }
    PlanLimits computed = new PlanLimits(plan, defaultLimits, countRefused, anchorEpochNanos);
    if (plans.size() < MAX_PLANS) {
      PlanLimits raced = plans.putIfAbsent(plan, computed);
      return raced != null ? raced : computed;
    }
    return computed;
  }

  /** The default limits' figures. */
  public PlanLimits defaults() {
    return defaults;
  }
}
