package io.slidingwindow;

import io.slidingwindow.internal.CalendarDays;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;

/**
 * The period of a calendar quota ({@link Limit#calendar}): a day, an ISO week (Monday first), a
 * month or a year of the local calendar of a time zone.
 *
 * <p>When a period starts. A period begins at the earliest instant at which the local date in the
 * zone is its first day or later: the day itself, the Monday of the week, the 1st of the month, the
 * 1st of January; it ends where the next period begins. That is the start of the first day as
 * {@link java.time.LocalDate#atStartOfDay(ZoneId)} gives it: usually local midnight; when midnight
 * falls in a daylight-saving gap, the first instant after the gap; when the clocks go back across
 * midnight, the first midnight. A day the zone skipped altogether (Samoa's 30 December 2011) is a
 * period of length zero. So periods follow one another without gap or overlap, and a day lasts 23,
 * 24 or 25 hours across a daylight-saving change.
 *
 * <p>Time-zone rules are the JVM's (its tzdb, {@link java.time.zone.ZoneRulesProvider}). A period
 * is named by its first day, not by its instants, so a change of the rules that moves the instant a
 * period begins or ends changes where it ends, never which permits it holds.
 */
public enum CalendarPeriod {
  /** A day. */
  DAY(Duration.ofHours(24), ChronoUnit.DAYS),
  /** An ISO-8601 week, from Monday to Sunday. */
  WEEK(Duration.ofDays(7), ChronoUnit.WEEKS),
  /** A month. */
  MONTH(Duration.ofDays(31), ChronoUnit.MONTHS),
  /** A year. */
  YEAR(Duration.ofDays(366), ChronoUnit.YEARS);

  private final Duration longest;

  /** The unit by which {@link CalendarDays} knows this period. */
  private final ChronoUnit unit;

  /**
   * {@code nominal} plus what a period may last beyond it through daylight-saving or rules; {@code
   * unit} names the period to {@link CalendarDays}.
   */
  CalendarPeriod(Duration nominal, ChronoUnit unit) {
    this.longest = nominal.plusHours(2);
    this.unit = unit;
  }

  /**
   * The longest nominal length (24 hours, 7 days, 31 days, 366 days) plus two hours: the longest a
   * period lasts in a zone whose offset moves by at most two hours at once, as daylight saving does
   * (a change of a zone's rules by more, such as a zone moving across the date line, can make one
   * period longer). It serves as the {@link Limit#window()} of a calendar quota, a hint for headers
   * and logs; decisions and expiry use the exact boundaries.
   */
  public Duration longest() {
    return longest;
  }

  /**
   * The instant the period that holds {@code instant} begins in {@code zone}, as defined above.
   *
   * @throws IllegalArgumentException if an argument is null
   */
  public Instant start(Instant instant, ZoneId zone) {
    return CalendarDays.start(unit, zone, CalendarDays.index(unit, zone, check(instant, zone)));
  }

  /**
   * The instant the period that holds {@code instant} ends in {@code zone}: where the next begins.
   *
   * @throws IllegalArgumentException if an argument is null
   */
  public Instant end(Instant instant, ZoneId zone) {
    return CalendarDays.start(unit, zone, CalendarDays.index(unit, zone, check(instant, zone)) + 1);
  }

  /** The word of this period in limit text, as in {@code 10000/month@Europe/Paris}. */
  String word() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  private static Instant check(Instant instant, ZoneId zone) {
    if (instant == null || zone == null) {
      throw new IllegalArgumentException(
          "instant and zone must not be null, were " + instant + " and " + zone);
    }
    return instant;
  }
}
