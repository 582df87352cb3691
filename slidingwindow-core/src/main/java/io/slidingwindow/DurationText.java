package io.slidingwindow;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a duration written by a person: a whole number with a unit ({@code 500ms}, {@code 90s},
 * {@code 5m}, {@code 1h}, {@code 1d}; also {@code ns} and {@code us}) or ISO-8601 ({@code
 * PT1M30S}). The one duration syntax of limit text ({@link Limit#parse}), the rate limit service's
 * configuration and settings. Stateless.
 */
public final class DurationText {

  private static final Pattern SHORT = Pattern.compile("(\\d+)(ns|us|ms|s|m|h|d)");

  private DurationText() {}

  /**
   * The positive duration {@code text} names.
   *
   * @param what the setting, for the message
   * @throws IllegalArgumentException naming {@code what} and {@code text} if it is null, no
   *     duration, too long, or not positive
   */
  public static Duration parse(String text, String what) {
    if (text == null) {
      throw new IllegalArgumentException(what + " must not be null");
    }
    Matcher m = SHORT.matcher(text);
    Duration parsed;
    if (m.matches()) {
      try {
        long amount = Long.parseLong(m.group(1));
        parsed =
            switch (m.group(2)) {
              case "ns" -> Duration.ofNanos(amount);
              case "us" -> Duration.ofNanos(Math.multiplyExact(amount, 1000L));
              case "ms" -> Duration.ofMillis(amount);
              case "s" -> Duration.ofSeconds(amount);
              case "m" -> Duration.ofMinutes(amount);
              case "h" -> Duration.ofHours(amount);
              default -> Duration.ofDays(amount);
            };
      } catch (ArithmeticException | NumberFormatException e) {
        throw new IllegalArgumentException(what + " is too long, was '" + text + "'", e);
      }
    } else {
      try {
        parsed = Duration.parse(text.toUpperCase(Locale.ROOT));
      } catch (DateTimeParseException e) {
        throw new IllegalArgumentException(
            what
                + " must be a duration such as 500ms, 90s, 5m, 1h, 1d or PT1M30S, was '"
                + text
                + "'",
            e);
      }
    }
    if (parsed.isZero() || parsed.isNegative()) {
      throw new IllegalArgumentException(what + " must be positive, was '" + text + "'");
    }
    return parsed;
  }

  /**
   * {@code duration} in the largest of the units {@code d}, {@code h}, {@code m}, {@code s}, {@code
   * ms}, {@code us} and {@code ns} that divides it, such as {@code 10s} or {@code 1500ms}; {@link
   * #parse} reads it back.
   *
   * @throws IllegalArgumentException if {@code duration} is null or not positive, or longer than
   *     {@link Long#MAX_VALUE} nanoseconds
   */
  public static String format(Duration duration) {
    if (duration == null || duration.isNegative() || duration.isZero()) {
      throw new IllegalArgumentException("duration must be positive, was " + duration);
    }
    long nanos;
    try {
      nanos = duration.toNanos();
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(
          "duration must fit in " + Long.MAX_VALUE + " nanoseconds, was " + duration, e);
    }
    long[] sizes = {86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L};
    String[] names = {"d", "h", "m", "s"};
    for (int i = 0; i < sizes.length; i++) {
      if (nanos % sizes[i] == 0) {
        return nanos / sizes[i] + names[i];
      }
    }
    if (nanos % 1_000_000 == 0) {
      return nanos / 1_000_000 + "ms";
    }
    return nanos % 1_000 == 0 ? nanos / 1_000 + "us" : nanos + "ns";
  }
}
