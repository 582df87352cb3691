package io.slidingwindow;

import io.slidingwindow.internal.Checks;
import io.slidingwindow.internal.WindowMath;
import java.time.Duration;

/**
 * A limit of {@code permits} per sliding {@code window}, tracked in buckets of width {@code
 * precision}.
 *
 * <p>Every limiter of this library enforces a limit in the same way: for every interval {@code [t,
 * t + window)} of its clock, the permits it grants with timestamps inside the interval sum to at
 * most {@link #permits()}. The precision only decides how soon capacity comes back: a request is
 * refused only if an exact sliding log over {@code window + precision} would refuse it too, and a
 * precision of one nanosecond ({@link #exact}) makes the limiter an exact sliding log. Coarser
 * precision means less memory: a limiter stores at most {@code min(permits, ceil(window /
 * precision) + 1)} (bucket, count) runs per limit.
 *
 * <p>The default precision is {@code window / 1000}, but not below one microsecond (and never above
 * the window).
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

  private Limit(long permits, long windowNanos, long precisionNanos) {
    this.permits = permits;
    this.windowNanos = windowNanos;
    this.precisionNanos = precisionNanos;
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
   * DurationText}. Blanks around the parts are ignored. The one reader of limit text: an adapter
   * that binds it from a setting names the setting when it passes the exception on.
   *
   * @throws IllegalArgumentException if {@code text} is null or not of that form, saying what was
   *     expected and what was found
   */
  public static Limit parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("limit must not be null");
    }
    int slash = text.indexOf('/');
    if (slash < 0 || text.indexOf('/', slash + 1) >= 0) {
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
    Duration window = DurationText.parse(text.substring(slash + 1).trim(), "limit's window");
    return of(permits, window);
  }

  /**
   * This limit as {@link #parse} reads it, such as {@code 5/10s}: the window in the largest whole
   * unit of {@code d}, {@code h}, {@code m}, {@code s}, {@code ms}, {@code us}, {@code ns}. The
   * precision is not written.
   */
  public String toText() {
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
   * Returns a copy of this limit tracked in buckets of width {@code precision}.
   *
   * @throws IllegalArgumentException if {@code precision} is null, not positive or longer than the
   *     window
   */
  public Limit withPrecision(Duration precision) {
    long precisionNanos = Checks.requirePositiveNanos(precision, "precision");
    Checks.requireArgument(
        precisionNanos <= windowNanos, "precision", "not exceed the window " + window(), precision);
    return new Limit(permits, windowNanos, precisionNanos);
  }

  /** The most permits granted in any interval of length {@link #window()}. */
  public long permits() {
    return permits;
  }

  /** The length of the sliding window. */
  public Duration window() {
    return Duration.ofNanos(windowNanos);
  }

  /** The length of the sliding window in nanoseconds. */
  public long windowNanos() {
    return windowNanos;
  }

  /** The width of one bucket: how late, at most, capacity comes back. */
  public Duration precision() {
    return Duration.ofNanos(precisionNanos);
  }

  /** The width of one bucket in nanoseconds. */
  public long precisionNanos() {
    return precisionNanos;
  }

  /** Whether this limit is tracked to the nanosecond, as an exact sliding log. */
  public boolean isExact() {
    return precisionNanos == 1;
  }

  /**
   * The most (bucket, count) runs a limiter stores for this limit: {@code min(permits, ceil(window
   * / precision) + 1)}. In process a run takes 8 bytes when {@code permits} does not exceed the
   * precision in nanoseconds, else 16.
   */
  public long maxStoredRuns() {
    return WindowMath.maxRuns(permits, windowNanos, precisionNanos);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Limit other
        && other.permits == permits
        && other.windowNanos == windowNanos
        && other.precisionNanos == precisionNanos;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(permits) * 961
        + Long.hashCode(windowNanos) * 31
        + Long.hashCode(precisionNanos);
  }

  /** For example {@code "100 per PT1S (precision PT0.001S)"}. */
  @Override
  public String toString() {
    return permits + " per " + window() + " (precision " + precision() + ")";
  }
}
