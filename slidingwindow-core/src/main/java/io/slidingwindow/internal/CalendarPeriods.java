package io.slidingwindow.internal;

import io.slidingwindow.CalendarPeriod;
import java.time.Instant;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;

/**
 * The periods of one calendar quota on one limiter's clock, and the period arithmetic shared with
 * the Redis limiter (which passes period boundaries to its script).
 *
 * <p>Periods are numbered by consecutive integers, their index, and begin and end as {@link
 * CalendarDays} computes them (see {@link CalendarPeriod} for why a period begins at the earliest
 * instant of its first day or later); this class names them by the API's enum.
 *
 * <p>A limiter's clock is nanoseconds since its origin; {@code anchorEpochNanos} is the wall-clock
 * time of that origin, read once when the limiter is built, so the epoch time of limiter time
 * {@code t} is {@code anchorEpochNanos + t}. The latest period computed is kept, so that the
 * time-zone rules are consulted once per period and limiter, not once per request. Thread-safe.
 */
public final class CalendarPeriods {

  /** One period on a limiter's clock: {@code [start, end)}. Immutable. */
  public record Period(long index, long start, long end) {
    /** Whether limiter time {@code t} falls in this period. */
    boolean holds(long t) {
      return t >= start && t < end;
    }
  }

  private final CalendarPeriod period;
  private final ZoneId zone;
  private final long anchorEpochNanos;

  /** The latest period computed; never null after construction. */
  private volatile Period latest;

  /**
   * The periods of {@code period} in {@code zone} on a clock whose origin is the given epoch time.
   */
  public CalendarPeriods(CalendarPeriod period, ZoneId zone, long anchorEpochNanos) {
    this.period = period;
    this.zone = zone;
    this.anchorEpochNanos = anchorEpochNanos;
    this.latest = compute(0);
  }

  /** The period that holds limiter time {@code t}. */
  public Period at(long t) {
    Period p = latest;
    if (p.holds(t)) {
      return p;
    }
    Period computed = compute(t);
    if (computed.start >= p.start) {
      latest = computed; // periods only move forward; a stale caller's older period is not kept
    }
    return computed;
  }

  private Period compute(long t) {
    long epochNanos = WindowMath.saturatedAdd(anchorEpochNanos, t);
    long index = index(period, zone, toInstant(epochNanos));
    return new Period(
        index,
        limiterTime(start(period, zone, index)),
        limiterTime(start(period, zone, index + 1)));
  }

  private long limiterTime(Instant instant) {
    return epochNanos(instant) - anchorEpochNanos;
  }

  /** The index of the period that holds {@code instant}: the last that began at or before it. */
  public static long index(CalendarPeriod period, ZoneId zone, Instant instant) {
    return CalendarDays.index(unit(period), zone, instant);
  }

  /** The instant period {@code index} begins. */
  public static Instant start(CalendarPeriod period, ZoneId zone, long index) {
    return CalendarDays.start(unit(period), zone, index);
  }

  /** The unit by which {@link CalendarDays} knows {@code period}. */
  static ChronoUnit unit(CalendarPeriod period) {
    return switch (period) {
      case DAY -> ChronoUnit.DAYS;
      case WEEK -> ChronoUnit.WEEKS;
      case MONTH -> ChronoUnit.MONTHS;
      case YEAR -> ChronoUnit.YEARS;
    };
  }

  /** Nanoseconds since the epoch of {@code instant}, saturated at the range of a long. */
  public static long epochNanos(Instant instant) {
    try {
      return Math.addExact(
          Math.multiplyExact(instant.getEpochSecond(), 1_000_000_000L), instant.getNano());
    } catch (ArithmeticException e) {
      return instant.getEpochSecond() < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }

  private static Instant toInstant(long epochNanos) {
    return Instant.ofEpochSecond(
        Math.floorDiv(epochNanos, 1_000_000_000L), Math.floorMod(epochNanos, 1_000_000_000L));
  }

  @Override
  public String toString() {
    return period + " in " + zone;
  }
}
