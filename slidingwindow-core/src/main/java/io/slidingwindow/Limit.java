package io.slidingwindow;

import io.slidingwindow.internal.Checks;
import io.slidingwindow.internal.WindowMath;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * A limit of {@code permits} per sliding {@code window}, tracked in buckets of width {@code
 * precision}.
 *
 * <p>Every limiter of this library enforces a sliding-window limit in the same way: for every
 * interval {@code [t, t + window)} of its clock, the permits it grants with timestamps inside the
 * interval sum to at most {@link #permits()}. The precision only decides how soon capacity comes
 * back: a request is refused only if an exact sliding log over {@code window + precision} would
 * refuse it too, and a precision of one nanosecond ({@link #exact}) makes the limiter an exact
 * sliding log. Coarser precision means less memory: a limiter stores at most {@code min(permits,
 * ceil(window / precision) + 1)} (bucket, count) runs per limit.
 *
 * <p>The default precision is {@code window / 1000}, but not below one microsecond (and never above
 * the window).
 *
 * <p>A calendar quota ({@link #calendar}) is the other kind: at most {@code permits} in each {@link
 * CalendarPeriod} of a time zone's calendar (a day, week, month or year, each starting as {@link
 * CalendarPeriod} says), counted exactly, one count per period. Its {@link #window()} and {@link
 * #precision()} are {@link CalendarPeriod#longest()}, an upper bound of a period's length used for
 * hints; decisions use the period's true boundaries. Sliding windows stay the default.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class Limit {

  /** Buckets per window of the default precision. */
  static final long DEFAULT_BUCKETS_PER_WINDOW = 1_000;

  /** The finest default precision: one microsecond. */
  static final long MIN_DEFAULT_PRECISION_NANOS = 1_000;

  private final long permits;
  private final long windowNanos;
  private final long precisionNanos;

  /** Null for a sliding window. */
  private final CalendarPeriod period;

  /** Null for a sliding window. */
  private final ZoneId zone;

  private Limit(long permits, long windowNanos, long precisionNanos) {
    this(permits, windowNanos, precisionNanos, null, null);
  }

  private Limit(
      long permits, long windowNanos, long precisionNanos, CalendarPeriod period, ZoneId zone) {
    this.permits = permits;
    this.windowNanos = windowNanos;
    this.precisionNanos = precisionNanos;
    this.period = period;
    this.zone = zone;
  }

  /**
   * Returns a limit of {@code permits} per sliding {@code window} with the default precision.
   *
   * @throws IllegalArgumentException if {@code permits <= 0}, or {@code window} is null, not
   *     positive, or longer than {@link Long#MAX_VALUE} nanoseconds
   */
  public static Limit of(long permits, Duration window) {
    Checks.requirePositive(permits, "permits");
    long windowNanos = Checks.requirePositiveNanos(window, "window");
    long precisionNanos =
        Math.min(
            windowNanos,
            Math.max(windowNanos / DEFAULT_BUCKETS_PER_WINDOW, MIN_DEFAULT_PRECISION_NANOS));
    return new Limit(permits, windowNanos, precisionNanos);
  }

  /**
   * Reads a limit written as {@code PERMITS/WINDOW}, such as {@code 5/10s}, {@code 500/2s} or
   * {@code 1000/PT1M}, with the default precision; the window in the syntax of {@link
   * DurationText}. A calendar quota is written {@code PERMITS/PERIOD@ZONE}, such as {@code
   * 10000/month@Europe/Paris}: the period {@code day}, {@code week}, {@code month} or {@code year},
   * the zone a {@link ZoneId} ({@code UTC} when {@code @ZONE} is left out). Blanks around the parts
   * are ignored. The one reader of limit text: an adapter that binds it from a setting names the
   * setting when it passes the exception on.
   *
   * @throws IllegalArgumentException if {@code text} is null or not of that form, saying what was
   *     expected and what was found
   */
  public static Limit parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("limit must not be null");
    }
    int slash = text.indexOf('/');
    int at = text.indexOf('@');
    int second = text.indexOf('/', slash + 1);
    if (slash < 0 || (second >= 0 && (at < 0 || second < at))) {
      throw new IllegalArgumentException(
          "limit must be PERMITS/WINDOW such as 5/10s or 500/2s, was '" + text + "'");
    }
    String permitsText = text.substring(0, slash).trim();
    long permits;
    try {
      permits = Long.parseLong(permitsText);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "limit's permits must be a whole number, was '" + permitsText + "' in '" + text + "'", e);
    }
    Checks.requireArgument(permits > 0, "limit's permits", "be positive", permits);
    String windowText = text.substring(slash + 1).trim();
    Limit calendar = parseCalendar(permits, windowText, text);
    if (calendar != null) {
      return calendar;
    }
    Duration window = DurationText.parse(windowText, "limit's window");
    return of(permits, window);
  }

  /** The calendar quota {@code windowText} names, or null if it names no calendar period. */
  private static Limit parseCalendar(long permits, String windowText, String text) {
    int at = windowText.indexOf('@');
    String word = (at < 0 ? windowText : windowText.substring(0, at)).trim();
    for (CalendarPeriod period : CalendarPeriod.values()) {
      if (period.word().equals(word.toLowerCase(Locale.ROOT))) {
        if (at < 0) {
          return calendar(permits, period, ZoneOffset.UTC);
        }
        String zoneText = windowText.substring(at + 1).trim();
        try {
          return calendar(permits, period, ZoneId.of(zoneText));
        } catch (DateTimeException e) {
          throw new IllegalArgumentException(
              "limit's zone must be a time-zone id such as Europe/Paris or UTC, was '"
                  + zoneText
                  + "' in '"
                  + text
                  + "'",
              e);
        }
      }
    }
    if (at >= 0) {
      throw new IllegalArgumentException(
          "limit's calendar period must be day, week, month or year before '@', was '"
              + word
              + "' in '"
              + text
              + "'");
    }
    return null;
  }

  /**
   * This limit as {@link #parse} reads it, such as {@code 5/10s}: the window in the largest whole
   * unit of {@code d}, {@code h}, {@code m}, {@code s}, {@code ms}, {@code us}, {@code ns}. The
   * precision is not written. A calendar quota is written as {@code 10000/month@Europe/Paris}.
   */
  public String toText() {
    if (period != null) {
      return permits + "/" + period.word() + "@" + zoneText(zone);
    }
    return permits + "/" + DurationText.format(window());
  }

  /**
   * Returns a limit of {@code permits} per sliding {@code window} tracked to the nanosecond: an
   * exact sliding log that stores at most {@code permits} runs.
   *
   * @throws IllegalArgumentException as {@link #of(long, Duration)} does
   */
  public static Limit exact(long permits, Duration window) {
    return of(permits, window).withPrecision(Duration.ofNanos(1));
  }

  /**
   * Returns a calendar quota: at most {@code permits} in each {@code period} of {@code zone}'s
   * calendar, such as 10 000 per calendar month in Europe/Paris. A period begins where {@link
   * CalendarPeriod} says, and its count starts from zero then. The count is exact: a request is
   * granted iff the permits granted in the current period plus the request fit in {@code permits}.
   *
   * @throws IllegalArgumentException if {@code permits <= 0}, or {@code period} or {@code zone} is
   *     null
   */
  public static Limit calendar(long permits, CalendarPeriod period, ZoneId zone) {
    Checks.requirePositive(permits, "permits");
    Checks.requireNonNull(period, "period");
    Checks.requireNonNull(zone, "zone");
    long longest = period.longest().toNanos();
    return new Limit(permits, longest, longest, period, zone.normalized());
  }

  /**
   * Returns a copy of this limit tracked in buckets of width {@code precision}.
   *
   * @throws IllegalArgumentException if {@code precision} is null, not positive or longer than the
   *     window, or this is a calendar quota, which has no buckets
   */
  public Limit withPrecision(Duration precision) {
    Checks.requireArgument(
        period == null, "precision", "not be set on a calendar quota " + this, precision);
    long precisionNanos = Checks.requirePositiveNanos(precision, "precision");
    Checks.requireArgument(
        precisionNanos <= windowNanos, "precision", "not exceed the window " + window(), precision);
    return new Limit(permits, windowNanos, precisionNanos);
  }

  /**
   * The most permits granted. For a sliding window: in any interval of length {@link #window()}.
   * For a calendar quota: within each calendar period, counted from zero at its start; this bounds
   * no interval that spans a boundary, so the end of one period and the start of the next can
   * together grant {@code 2 * permits} within much less than a period (for a monthly quota, {@code
   * permits} in the last minute of one month and {@code permits} more in the first of the next).
   */
  public long permits() {
    return permits;
  }

  /**
   * For a sliding window, its length. For a calendar quota, which has no sliding window, {@link
   * CalendarPeriod#longest()} (the nominal longest period plus two hours: for a month 31 days and
   * two hours): an upper bound of one period's length, which limiters use only for hints such as a
   * header's window; decisions use the period's true boundaries.
   */
  public Duration window() {
    return Duration.ofNanos(windowNanos);
  }

  /** {@link #window()} in nanoseconds. */
  public long windowNanos() {
    return windowNanos;
  }

  /**
   * For a sliding window, the width of one bucket: how late, at most, capacity comes back after the
   * permits that took it leave the window. For a calendar quota, which has no buckets, the same as
   * {@link #window()}; its capacity comes back all at once, at the start of the next period.
   */
  public Duration precision() {
    return Duration.ofNanos(precisionNanos);
  }

  /** {@link #precision()} in nanoseconds. */
  public long precisionNanos() {
    return precisionNanos;
  }

  /** Whether this limit is tracked to the nanosecond, as an exact sliding log. */
  public boolean isExact() {
    return precisionNanos == 1;
  }

  /** Whether this is a calendar quota ({@link #calendar}) rather than a sliding window. */
  public boolean isCalendar() {
    return period != null;
  }

  /** The period of a calendar quota; empty for a sliding window. */
  public Optional<CalendarPeriod> calendarPeriod() {
    return Optional.ofNullable(period);
  }

  /** The time zone of a calendar quota; empty for a sliding window. */
  public Optional<ZoneId> calendarZone() {
    return Optional.ofNullable(zone);
  }

  /**
   * Whether {@code other} counts the same permits as this limit, whatever its {@code permits}: a
   * sliding window of the same window and precision, or a calendar quota of the same period and
   * zone. A key whose limits change keeps the counts of such a window (see {@link Plan}).
   */
  public boolean sameWindow(Limit other) {
    return other != null
        && other.windowNanos == windowNanos
        && other.precisionNanos == precisionNanos
        && other.period == period
        && Objects.equals(other.zone, zone);
  }

  /**
   * The most (bucket, count) runs a limiter stores for this limit: {@code min(permits, ceil(window
   * / precision) + 1)}. In process a run takes 8 bytes when {@code permits} does not exceed the
   * precision in nanoseconds, else 16. A calendar quota stores one count.
   */
  public long maxStoredRuns() {
    return period != null ? 1 : WindowMath.maxRuns(permits, windowNanos, precisionNanos);
  }

  /** A zone's id, with {@code UTC} for the normalized UTC offset {@code Z}. */
  static String zoneText(ZoneId zone) {
    return zone.equals(ZoneOffset.UTC) ? "UTC" : zone.getId();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Limit other && other.permits == permits && sameWindow(other);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(permits) * 961
        + Long.hashCode(windowNanos) * 31
        + Long.hashCode(precisionNanos)
        + Objects.hashCode(zone);
  }

  /**
   * For example {@code "100 per PT1S (precision PT0.001S)"}, or {@code "10000 per calendar MONTH in
   * Europe/Paris"}.
   */
  @Override
  public String toString() {
    if (period != null) {
      return permits + " per calendar " + period + " in " + zoneText(zone);
    }
    return permits + " per " + window() + " (precision " + precision() + ")";
  }
}
