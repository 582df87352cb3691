package io.slidingwindow.server.internal;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the durations of the configuration: a whole number with a unit ({@code 500ms}, {@code 90s},
 * {@code 5m}, {@code 1h}, {@code 1d}; also {@code ns} and {@code us}) or ISO-8601 ({@code
 * PT1M30S}). Stateless.
 */
public final class DurationText {

  private static final Pattern SHORT = Pattern.compile("(\\d{1,18})(ns|us|ms|s|m|h|d)");

  private DurationText() {}

  /**
   * The positive duration {@code text} names.
   *
   * @param what the setting, for the message
   * @throws IllegalArgumentException naming {@code what} and {@code text} if it is no duration, is
   *     too long, or is not positive
   */
  public static Duration parse(String text, String what) {
    Matcher m = SHORT.matcher(text);
    Duration parsed;
    if (m.matches()) {
      long amount = Long.parseLong(m.group(1));
      try {
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
      } catch (ArithmeticException e) {
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
}
