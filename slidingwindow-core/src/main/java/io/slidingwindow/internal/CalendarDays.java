package io.slidingwindow.internal;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAdjusters;

/**
 * The arithmetic of calendar periods, by the unit of their length: {@link ChronoUnit#DAYS}, {@link
 * ChronoUnit#WEEKS} (ISO weeks, Monday first), {@link ChronoUnit#MONTHS} or {@link
 * ChronoUnit#YEARS}. It knows a period by its unit, not by the API's enum of calendar periods, so
 * that the enum computes its own boundaries here while this package depends on the enum and not the
 * other way round.
 *
 * <p>Periods are numbered by consecutive integers, their index: the epoch day of a day; for a week,
 * the number of Mondays since 5 January 1970 (a Monday); for a month, {@code year * 12 + month -
 * 1}; for a year, the year. A period begins at {@code firstDay.atStartOfDay(zone)}, the earliest
 * instant of its first day or later, and ends where the next one begins; the period of an instant
 * is the last one that has begun, so periods never overlap, even where the local date steps back.
 */
public final class CalendarDays {

  private CalendarDays() {}

  /** The index of the period that holds {@code instant}: the last that began at or before it. */
  public static long index(ChronoUnit unit, ZoneId zone, Instant instant) {
    long index = indexOf(unit, instant.atZone(zone).toLocalDate());
    while (instant.isBefore(start(unit, zone, index))) {
      index--;
    }
    while (!instant.isBefore(start(unit, zone, index + 1))) {
      index++;
    }
    return index;
  }

  /** The instant period {@code index} begins. */
  public static Instant start(ChronoUnit unit, ZoneId zone, long index) {
    return firstDay(unit, index).atStartOfDay(zone).toInstant();
  }

  /** The index of the period whose days include {@code date}. */
  static long indexOf(ChronoUnit unit, LocalDate date) {
    return switch (unit) {
      case DAYS -> date.toEpochDay();
      case WEEKS ->
          Math.floorDiv(
              date.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY)).toEpochDay() - 4, 7);
      case MONTHS -> date.getYear() * 12L + date.getMonthValue() - 1;
      case YEARS -> date.getYear();
      default -> throw notAPeriod(unit);
    };
  }

  /** The first day of period {@code index}. */
  static LocalDate firstDay(ChronoUnit unit, long index) {
    return switch (unit) {
      case DAYS -> LocalDate.ofEpochDay(index);
      case WEEKS -> LocalDate.ofEpochDay(index * 7 + 4);
      case MONTHS ->
          LocalDate.of(Math.toIntExact(Math.floorDiv(index, 12)), Math.floorMod(index, 12) + 1, 1);
      case YEARS -> LocalDate.of(Math.toIntExact(index), 1, 1);
      default -> throw notAPeriod(unit);
    };
  }

  private static IllegalArgumentException notAPeriod(ChronoUnit unit) {
    return new IllegalArgumentException("unit must be DAYS, WEEKS, MONTHS or YEARS, was " + unit);
  }
}
