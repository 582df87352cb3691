package io.slidingwindow.internal;

import io.slidingwindow.Limit;

/**
 * The one rule by which a key's recorded permits follow a change of its limits (stated for users in
 * {@code io.slidingwindow.Plan}): each new limit takes its permits from the old window of the same
 * window and precision, or calendar period and zone ({@link Limit#sameWindow}), kept as it is; else
 * from the old limits' longest sliding window, seeded conservatively ({@link Window#absorb}); else
 * it starts empty. Old windows no new limit takes from are forgotten. Stateless.
 */
final class PlanChange {

  private PlanChange() {}

  /**
   * The windows of {@code next}, holding what {@code old} held by the rule above, at {@code now}.
   */
  static Window[] carry(Window[] old, PlanLimits next, long now) {
    Window[] fresh = new Window[next.size()];
    for (int i = 0; i < fresh.length; i++) {
      Window.Config config = next.config(i);
      Window window = (Window) config.create(now);
      Window source = sourceFor(config.limit(), old);
      if (source != null) {
        window.absorb(source, now);
      }
      fresh[i] = window;
    }
    return fresh;
  }

  /** The old window {@code limit} takes its permits from, or null. */
  private static Window sourceFor(Limit limit, Window[] old) {
    Window longest = null;
    for (Window w : old) {
      Limit was = w.limit();
      if (was.sameWindow(limit)) {
        return w;
      }
      if (!was.isCalendar()
          && (longest == null || was.windowNanos() > longest.limit().windowNanos())) {
        longest = w;
      }
    }
    return longest;
  }

  /**
   * Records into {@code target}, empty, what {@code source} holds that it counts at {@code now}, as
   * {@link Window#absorb} says: each run at its latest instant no later than {@code now}, all of
   * them, even more than the target's permits. A window that kept only what fits its new, lower
   * limit would forget the older permits, and a later rise of the limit would grant them again
   * within the same interval (lower then raise, repeatedly, and the limit is gone); kept, they make
   * every interval hold at most the largest limit in force during it. Such a window grants nothing
   * until enough have left, exactly as one that kept only the newest would.
   */
  static void absorbSliding(LimitRuns target, Window source, long now) {
    Limit limit = target.limit();
    long precision = limit.precisionNanos();
    long oldest = WindowMath.oldestBucket(now, limit.windowNanos(), precision);
    int n = source.runCount();
    long[] times = new long[n];
    long[] counts = new long[n];
    int taken = 0;
    for (int i = 0; i < n; i++) {
      long t = source.runLatest(i, now);
      if (WindowMath.bucket(t, precision) < oldest) {
        break; // this run and every older one no longer count here
      }
      times[taken] = t;
      counts[taken++] = source.runPermits(i);
    }
    for (int i = taken - 1; i >= 0; i--) {
      target.record(times[i], counts[i]);
    }
  }
}
