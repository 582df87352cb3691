package io.slidingwindow.testkit;

import io.slidingwindow.CalendarPeriod;
import io.slidingwindow.Limit;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The brute-force reference for a calendar quota: it keeps every recorded grant with its instant,
 * and finds periods by scanning the zone's local dates, not by the library's arithmetic, so that
 * limiters can be checked against the definition in {@link CalendarPeriod}: a period begins at the
 * earliest instant whose local date is its first day or later, and the period of an instant is the
 * last that has begun.
 *
 * <p>The earliest such instant is found by stepping a minute at a time over the 36 hours around the
 * first day's UTC midnight, then halving the minute in which the local date reaches the first day.
 * Slow and obviously right. Not thread-safe.
 */
public final class CalendarLogOracle {

  private static final long MINUTE = 60_000_000_000L;

  private final long permits;
  private final CalendarPeriod period;
  private final ZoneId zone;

  /** Each grant as {@code {epoch nanos, permits}}. */
  private final List<long[]> grants = new ArrayList<>();

  /** The scans already made, by first day. */
  private final Map<LocalDate, Long> starts = new HashMap<>();

  /** An empty log for {@code limit}, a calendar quota. */
  public CalendarLogOracle(Limit limit) {
    this.permits = limit.permits();
    this.period = limit.calendarPeriod().orElseThrow();
    this.zone = limit.calendarZone().orElseThrow();
  }

  /** The limit's permits. */
  public long permits() {
    return permits;
  }

  /** Records {@code permits} granted at {@code epochNanos}. */
  public void record(long epochNanos, long permits) {
    grants.add(new long[] {epochNanos, permits});
  }

  /** Forgets every grant. */
  public void clear() {
    grants.clear();
  }

  /** Takes back up to {@code permits} of the newest permits; returns how many. */
  public long removeNewest(long permits) {
    return removeNewest(permits, null);
  }

  /**
   * Takes back up to {@code permits} of the newest grants in period {@code first} (any if null).
   */
  private long removeNewest(long permits, LocalDate first) {
    long left = permits;
    for (int i = grants.size() - 1; i >= 0 && left > 0; i--) {
      long[] g = grants.get(i);
      if (first == null || periodOf(g[0]).equals(first)) {
        long taken = Math.min(g[1], left);
        g[1] -= taken;
        left -= taken;
        if (g[1] == 0) {
          grants.remove(i);
        }
      }
    }
    return permits - left;
  }

  /** The grants, each as {@code {epoch nanos, permits}}, in the order recorded; copies. */
  public List<long[]> grants() {
    List<long[]> copy = new ArrayList<>(grants.size());
    for (long[] g : grants) {
      copy.add(g.clone());
    }
    return copy;
  }

  /**
   * Takes back up to {@code permits} permits of the newest grants in the period that holds {@code
   * epochNanos}, as the refund of a reservation made then does; returns how many.
   */
  public long removeInPeriod(long epochNanos, long permits) {
    return removeNewest(permits, periodOf(epochNanos));
  }

  /** The permits recorded in the period that holds {@code epochNanos}. */
  public long countAt(long epochNanos) {
    LocalDate first = periodOf(epochNanos);
    long count = 0;
    for (long[] g : grants) {
      if (g[0] <= epochNanos && periodOf(g[0]).equals(first)) {
        count += g[1];
      }
    }
    return count;
  }

  /** Whether the exact quota would grant {@code permits} at {@code epochNanos}. */
  public boolean wouldGrant(long epochNanos, long permits) {
    return countAt(epochNanos) + permits <= this.permits;
  }

  /** The first day of the period that holds {@code epochNanos}. */
  public LocalDate periodOf(long epochNanos) {
    LocalDate first = firstDay(localDate(epochNanos));
    while (startOf(first) > epochNanos) {
      first = firstDay(first.minusDays(1));
    }
    LocalDate next = nextFirstDay(first);
    while (startOf(next) <= epochNanos) {
      first = next;
      next = nextFirstDay(first);
    }
    return first;
  }

  /** When the period that holds {@code epochNanos} ends, in epoch nanoseconds. */
  public long endOf(long epochNanos) {
    return startOf(nextFirstDay(periodOf(epochNanos)));
  }

  /**
   * The earliest instant, in epoch nanoseconds, whose local date is {@code day} or later: found by
   * scanning minutes around the day's UTC midnight, then halving the minute.
   */
  public long startOf(LocalDate day) {
    return starts.computeIfAbsent(day, this::scan);
  }

  private long scan(LocalDate day) {
    long utcMidnight = day.toEpochDay() * 86_400L * 1_000_000_000L;
    long before = utcMidnight - 18 * 60 * MINUTE;
    long after = before;
    while (localDate(after).isBefore(day)) {
      before = after;
      after += MINUTE;
    }
    while (after - before > 1) {
      long mid = before + (after - before) / 2;
      if (localDate(mid).isBefore(day)) {
        before = mid;
      } else {
        after = mid;
      }
    }
    return after;
  }

  private LocalDate localDate(long epochNanos) {
    return Instant.ofEpochSecond(
            Math.floorDiv(epochNanos, 1_000_000_000L), Math.floorMod(epochNanos, 1_000_000_000L))
        .atZone(zone)
        .toLocalDate();
  }

  private LocalDate firstDay(LocalDate date) {
    return switch (period) {
      case DAY -> date;
      case WEEK -> date.minusDays(date.getDayOfWeek().getValue() - DayOfWeek.MONDAY.getValue());
      case MONTH -> date.withDayOfMonth(1);
      case YEAR -> date.withDayOfYear(1);
    };
  }

  private LocalDate nextFirstDay(LocalDate first) {
    return switch (period) {
      case DAY -> first.plusDays(1);
      case WEEK -> first.plusWeeks(1);
      case MONTH -> first.plusMonths(1);
      case YEAR -> first.plusYears(1);
    };
  }

  @Override
  public String toString() {
    return "CalendarLogOracle["
        + permits
        + " per "
        + period
        + " in "
        + zone
        + ", "
        + grants.size()
        + " grants]";
  }
}
