package io.slidingwindow;

import java.time.Duration;
import java.util.OptionalDouble;

/**
 * What a {@link RollingWindow} held at one instant: the sum, count, minimum and maximum of the
 * values added in the buckets the snapshot covers (see {@link RollingWindow#reduce()} for exactly
 * which span that is), with the mean and per-second rates derived from them.
 *
 * <p>Rates are per second of the covered buckets' nominal length, {@link #length()}: {@code
 * buckets * interval}, the convention of Sentinel's and Hystrix's rolling metrics. The newest
 * bucket is counted whole even while it is still filling (unless the window ignores it), so a rate
 * read early in a bucket understates a steady rate by up to one bucket's share.
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

  /** The sum of the values covered; {@code 0} when none is. */
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

  /** Values added per second: {@code count} over {@link #length()} in seconds. */
  public double ratePerSecond() {
    return count * NANOS_PER_SECOND / lengthNanos;
  }

  /** The sum per second: {@code sum} over {@link #length()} in seconds. */
  public double sumPerSecond() {
    return sum * NANOS_PER_SECOND / lengthNanos;
  }

  /** The nominal length of the covered buckets: their number times the bucket interval. */
  public Duration length() {
    return Duration.ofNanos(lengthNanos);
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof RollingSnapshot)) {
      return false;
    }
    RollingSnapshot other = (RollingSnapshot) o;
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
