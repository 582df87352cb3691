package io.slidingwindow;

import java.time.Duration;
import java.util.OptionalDouble;

/**
 * What a {@link RollingWindow} held at one instant: the sum, count, minimum and maximum of the
 * values added in the buckets the snapshot covers (see {@link RollingWindow#reduce()} for exactly
 * which span that is), with the mean and per-second rates derived from them.
 *
 * <p>Rates are per second of {@link #length()}, the covered buckets' whole length ({@code buckets *
 * interval}, as Sentinel's and Hystrix's rolling metrics count it), except that buckets before the
 * window's origin (its bucket 0) are not counted: a rate read before a whole window has passed is
 * not diluted by time before the window existed. The newest bucket is counted whole even while it
 * is still filling (unless the window ignores it), so a rate read early in a bucket understates a
 * steady rate by up to one bucket's share.
 *
 * <p>The sum is a {@code double} sum of finite values and is not guarded against overflow: it is
 * {@code ±Infinity} once values near {@link Double#MAX_VALUE} add up beyond it, and NaN when some
 * partial sums overflowed to {@code +Infinity} and others to {@code -Infinity} (in different
 * buckets, or in one bucket from adds on different stripes); {@link #mean()} and {@link
 * #sumPerSecond()} follow. Count, minimum and maximum stay exact.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class RollingSnapshot {

  private static final double NANOS_PER_SECOND = 1e9;

  private final double sum;
  private final long count;
  private final double min;
  private final double max;
  private final long lengthNanos;

  RollingSnapshot(double sum, long count, double min, double max, long lengthNanos) {
    this.sum = sum;
    this.count = count;
    this.min = min;
    this.max = max;
    this.lengthNanos = lengthNanos;
  }

  /**
   * The sum of the values covered; {@code 0} when none is, infinite or NaN if it overflowed (see
   * the class comment).
   */
  public double sum() {
    return sum;
  }

  /** How many values were added in the covered buckets. */
  public long count() {
    return count;
  }

  /** Whether no value is covered. */
  public boolean isEmpty() {
    return count == 0;
  }

  /** The smallest value covered; empty when none is. */
  public OptionalDouble min() {
    return count == 0 ? OptionalDouble.empty() : OptionalDouble.of(min);
  }

  /** The largest value covered; empty when none is. */
  public OptionalDouble max() {
    return count == 0 ? OptionalDouble.empty() : OptionalDouble.of(max);
  }

  /** {@code sum / count}; empty when no value is covered. */
  public OptionalDouble mean() {
    return count == 0 ? OptionalDouble.empty() : OptionalDouble.of(sum / count);
  }

  /**
   * Values added per second: {@code count} over {@link #length()} in seconds; {@code 0} when the
   * length is zero (then nothing is covered).
   */
  public double ratePerSecond() {
    return lengthNanos == 0 ? 0 : count * NANOS_PER_SECOND / lengthNanos;
  }

  /**
   * The sum per second: {@code sum} over {@link #length()} in seconds; {@code 0} when the length is
   * zero (then nothing is covered).
   */
  public double sumPerSecond() {
    return lengthNanos == 0 ? 0 : sum * NANOS_PER_SECOND / lengthNanos;
  }

  /**
   * The length the rates divide by: the number of covered buckets at or after the window's origin
   * (its bucket 0) times the bucket interval. It is {@code size * interval} (or {@code (size - 1) *
   * interval} when the window ignores the current bucket) once that much time has passed since the
   * origin, less before, and zero for a window that ignores the current bucket, read in its first.
   */
  public Duration length() {
    return Duration.ofNanos(lengthNanos);
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof RollingSnapshot other)) {
      return false;
    }
    return count == other.count
        && lengthNanos == other.lengthNanos
        && Double.compare(sum, other.sum) == 0
        && (count == 0
            || (Double.compare(min, other.min) == 0 && Double.compare(max, other.max) == 0));
  }

  @Override
  public int hashCode() {
    int h = Double.hashCode(sum) * 31 + Long.hashCode(count);
    h = h * 31 + Long.hashCode(lengthNanos);
    return count == 0 ? h : (h * 31 + Double.hashCode(min)) * 31 + Double.hashCode(max);
  }

  /** For example {@code "RollingSnapshot[sum=27.0, count=7, min=1.0, max=7.0, length=PT1.5S]"}. */
  @Override
  public String toString() {
    return "RollingSnapshot[sum="
        + sum
        + ", count="
        + count
        + (count == 0 ? "" : ", min=" + min + ", max=" + max)
        + ", length="
        + length()
        + "]";
  }
}
