package io.slidingwindow.testkit;

import io.slidingwindow.Limit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What one limit of a key counts, on the oracles, for {@link PlanConformance}: a {@link
 * SlidingLogOracle} for a sliding window, a {@link CalendarLogOracle} for a calendar quota. Times
 * are the limiter's (nanoseconds since it was built); a calendar quota's epoch time is {@code
 * anchorEpochNanos} plus that.
 *
 * <p>The model is what a backend must count at least: it holds the grants the rule of {@code Plan}
 * keeps, at their true times, where a backend may hold more, or hold them at later times (in later
 * buckets). So whenever a backend grants, the model holds at most {@code N} in the window ending at
 * the grant. Not thread-safe.
 */
final class WindowModel {

  private final Limit limit;
  private final long anchorEpochNanos;
  private final SlidingLogOracle sliding;
  private final CalendarLogOracle calendar;

  WindowModel(Limit limit, long anchorEpochNanos) {
    this.limit = limit;
    this.anchorEpochNanos = anchorEpochNanos;
    this.sliding = limit.isCalendar() ? null : SlidingLogOracle.of(limit);
    this.calendar = limit.isCalendar() ? new CalendarLogOracle(limit) : null;
  }

  Limit limit() {
    return limit;
  }

  void record(long t, long permits) {
    if (sliding != null) {
      sliding.record(t, permits);
    } else {
      calendar.record(anchorEpochNanos + t, permits);
    }
  }

  /** The permits this window holds that count at time {@code t}. */
  long counted(long t) {
    return sliding != null
        ? sliding.countAt(t, limit.windowNanos())
        : calendar.countAt(anchorEpochNanos + t);
  }

  void removeNewest(long permits) {
    if (sliding != null) {
      sliding.removeNewest(permits);
    } else {
      calendar.removeNewest(permits);
    }
  }

  void clear() {
    if (sliding != null) {
      sliding.clear();
    } else {
      calendar.clear();
    }
  }

  /** The grants that count at time {@code c}, as {@code {time, permits}}, newest first. */
  private List<long[]> countedAt(long c) {
    List<long[]> held = new ArrayList<>();
    if (sliding != null) {
      for (long[] g : sliding.grants()) {
        if (g[0] > c - limit.windowNanos() && g[0] <= c) {
          held.add(g);
        }
      }
    } else {
      long epoch = anchorEpochNanos + c;
      for (long[] g : calendar.grants()) {
        if (g[0] <= epoch && calendar.periodOf(g[0]).equals(calendar.periodOf(epoch))) {
          held.add(new long[] {g[0] - anchorEpochNanos, g[1]});
        }
      }
    }
    held.sort(Comparator.comparingLong((long[] g) -> g[0]).reversed());
    return held;
  }

  /**
   * The model of {@code next} taking its permits from this window at time {@code c}, by the rule of
   * {@code Plan}: all that this window counts at {@code c}, even more than {@code next}'s permits.
   */
  WindowModel carry(Limit next, long c) {
    WindowModel carried = new WindowModel(next, anchorEpochNanos);
    List<long[]> kept = countedAt(c);
    for (int i = kept.size() - 1; i >= 0; i--) {
      carried.record(kept.get(i)[0], kept.get(i)[1]);
    }
    return carried;
  }

  @Override
  public String toString() {
    return "WindowModel[" + limit + ", " + (sliding != null ? sliding : calendar) + "]";
  }
}
