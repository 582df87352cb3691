package io.slidingwindow.internal;

/**
 * The state of a key of a limiter with plans: the windows of the key's current plan, and which plan
 * and resolution they follow. {@link Planner#ensure} brings it up to date under the key's lock
 * before every operation; {@link PlanChange} carries the recorded permits over when the plan's
 * limits change. Until it is first planned it has no window and counts nothing.
 *
 * <p>Not thread-safe: the owner holds a lock around every call.
 */
public final class PlannedLimits extends KeyLimits {

  private static final Window[] NONE = new Window[0];

  private Window[] windows = NONE;

  /** Null until planned. */
  private PlanLimits plan;

  private boolean countRefused;

  /** The resolution ({@link Planner}'s generation) the plan was resolved at; -1 until planned. */
  private int generation = -1;

  /** An unplanned state whose clock starts at {@code start}. */
  PlannedLimits(long start) {
    super(start);
  }

  @Override
  int limitCount() {
    return windows.length;
  }

  @Override
  Window window(int i) {
    return windows[i];
  }

  @Override
  boolean countsRefused() {
    return countRefused;
  }

  @Override
  String planName() {
    return plan == null ? null : plan.name();
  }

  /** The plan this state follows; null until planned. */
  public PlanLimits plan() {
    return plan;
  }

  /** Whether the plan was resolved at {@code generation}. */
  boolean isPlannedAt(int generation) {
    return this.generation == generation;
  }

  /**
   * Follows {@code next} from time {@code now} on, carrying the recorded permits over by {@link
   * PlanChange}'s rule unless the limits are the same.
   */
  void replan(PlanLimits next, boolean countRefused, int generation, long now) {
    long t = advance(now);
    if (plan == null || !plan.limits().equals(next.limits())) {
      windows = PlanChange.carry(windows, next, t);
    }
    this.plan = next;
    this.countRefused = countRefused;
    this.generation = generation;
  }
}
