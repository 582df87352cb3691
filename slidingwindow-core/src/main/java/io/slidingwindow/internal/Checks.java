package io.slidingwindow.internal;

import java.time.Duration;

/**
 * The argument and state checks of this library, one line at each call site. Every message names
 * the parameter (or setter) and the value it was given, as {@code "window must be positive, was
 * PT0S"}. A message is built only when a check fails, so that checks on hot paths allocate nothing
 * (their values are primitives, never boxed).
 */
public final class Checks {

  private Checks() {}

  /**
   * Throws unless {@code condition} holds: {@code "<name> must <rule>, was <value>"}.
   *
   * @throws IllegalArgumentException if {@code condition} is false
   */
  public static void requireArgument(boolean condition, String name, String rule, long value) {
    if (!condition) {
      throw new IllegalArgumentException(name + " must " + rule + ", was " + value);
    }
  }

  /**
   * Throws unless {@code condition} holds: {@code "<name> must <rule>, was <value>"}.
   *
   * @throws IllegalArgumentException if {@code condition} is false
   */
  public static void requireArgument(boolean condition, String name, String rule, Object value) {
    if (!condition) {
      throw new IllegalArgumentException(name + " must " + rule + ", was " + value);
    }
  }

  /**
   * Throws unless {@code condition} holds: {@code "<name> must <rule>, was <value>"}.
   *
   * @throws IllegalArgumentException if {@code condition} is false
   */
  public static void requireArgument(boolean condition, String name, String rule, double value) {
    if (!condition) {
      throw new IllegalArgumentException(name + " must " + rule + ", was " + value);
    }
  }

  /**
   * Returns {@code value}: {@code "<name> must not be null"}.
   *
   * @throws IllegalArgumentException if {@code value} is null
   */
  public static <T> T requireNonNull(T value, String name) {
    if (value == null) {
      throw new IllegalArgumentException(name + " must not be null");
    }
    return value;
  }

  /**
   * Returns {@code values}: {@code "<name> must not be null"}, {@code "<name> must hold at least
   * one element, was []"} or {@code "<name>' element must not be null"}.
   *
   * @throws IllegalArgumentException if {@code values} is null, empty or holds a null
   */
  public static <C extends java.util.Collection<?>> C requireElements(C values, String name) {
    requireNonNull(values, name);
    requireArgument(!values.isEmpty(), name, "hold at least one element", values);
    for (Object value : values) {
      requireNonNull(value, name + "' element");
    }
    return values;
  }

  /**
   * Returns {@code value}: {@code "<name> must be positive, was <value>"}.
   *
   * @throws IllegalArgumentException if {@code value} is zero or negative
   */
  public static long requirePositive(long value, String name) {
    requireArgument(value > 0, name, "be positive", value);
    return value;
  }

  /**
   * Returns {@code value}: {@code "<name> must not be negative, was <value>"}.
   *
   * @throws IllegalArgumentException if {@code value} is negative
   */
  public static long requireNonNegative(long value, String name) {
    requireArgument(value >= 0, name, "not be negative", value);
    return value;
  }

  /**
   * Returns {@code value}: {@code "<name> must be between <min> and <max>, was <value>"}.
   *
   * @throws IllegalArgumentException if {@code value} is below {@code min} or above {@code max}
   */
  public static long requireBetween(long value, long min, long max, String name) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          name + " must be between " + min + " and " + max + ", was " + value);
    }
    return value;
  }

  /**
   * Returns {@code duration} in nanoseconds.
   *
   * @throws IllegalArgumentException if {@code duration} is null ({@code "<name> must not be
   *     null"}), zero or negative ({@code "<name> must be positive, was <duration>"}), or longer
   *     than {@link Long#MAX_VALUE} nanoseconds ({@code "<name> must fit in 9223372036854775807
   *     nanoseconds, was <duration>"})
   */
  public static long requirePositiveNanos(Duration duration, String name) {
    requireNonNull(duration, name);
    requireArgument(!duration.isNegative() && !duration.isZero(), name, "be positive", duration);
    try {
      return duration.toNanos();
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(
          name + " must fit in " + Long.MAX_VALUE + " nanoseconds, was " + duration, e);
    }
  }

  /**
   * Returns {@code duration} if it is positive and at most {@code max}: {@code "<name> must be
   * positive and at most <max>, was <duration>"}.
   *
   * @throws IllegalArgumentException if {@code duration} is null, zero, negative or longer than
   *     {@code max}
   */
  public static Duration requirePositiveAtMost(Duration duration, Duration max, String name) {
    requireArgument(
        duration != null
            && !duration.isNegative()
            && !duration.isZero()
            && duration.compareTo(max) <= 0,
        name,
        "be positive and at most " + max,
        duration);
    return duration;
  }

  /**
   * The value of a builder setting that may be set once: {@code value} if the setting is unset
   * ({@code current} null) or already holds an equal value.
   *
   * @throws IllegalStateException if the setting already holds a different value: {@code "<setter>
   *     was already set to <current>, cannot set it to <value>"}
   */
  public static <T> T setOnce(T current, T value, String setter) {
    if (current != null && !current.equals(value)) {
      throw new IllegalStateException(
          setter + " was already set to " + current + ", cannot set it to " + value);
    }
    return value;
  }
}
