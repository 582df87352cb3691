package io.slidingwindow.server.config;

import java.time.Duration;
import java.util.Locale;

/**
 * The named units of envoyproxy/ratelimit's {@code rate_limit.unit}, with the lengths that service
 * gives them (a month is 30 days, a year 365). {@link #UNKNOWN} stands for a window that is no
 * named unit.
 */
public enum TimeUnitName {
  UNKNOWN(Duration.ZERO),
  SECOND(Duration.ofSeconds(1)),
  MINUTE(Duration.ofMinutes(1)),
  HOUR(Duration.ofHours(1)),
  DAY(Duration.ofDays(1)),
  WEEK(Duration.ofDays(7)),
  MONTH(Duration.ofDays(30)),
  YEAR(Duration.ofDays(365));

  private final Duration length;

  TimeUnitName(Duration length) {
    this.length = length;
  }

  /** The unit's length; zero for {@link #UNKNOWN}. */
  public Duration length() {
    return length;
  }

  /** The unit named {@code name} in any letter case, or null if none (UNKNOWN is no name). */
  static TimeUnitName parse(String name) {
    for (TimeUnitName unit : values()) {
      if (unit != UNKNOWN && unit.name().equals(name.toUpperCase(Locale.ROOT))) {
        return unit;
      }
    }
    return null;
  }

  /** The unit exactly {@code window} long, or {@link #UNKNOWN}. */
  public static TimeUnitName of(Duration window) {
    for (TimeUnitName unit : values()) {
      if (unit != UNKNOWN && unit.length.equals(window)) {
        return unit;
      }
    }
    return UNKNOWN;
  }
}
