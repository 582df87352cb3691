package io.slidingwindow.benchmarks.server;

import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * BENCHMARK HARNESS support: round-trip percentiles of the measured calls, through an HdrHistogram
 * with three significant digits (a reported value is within 0.1 % of the exact percentile of the
 * samples). Values are nanoseconds; longer than a minute is recorded as a minute. Not thread-safe:
 * filled after the run.
 */
final class Latencies {

  static final long HIGHEST_NANOS = TimeUnit.MINUTES.toNanos(1);

  private final Histogram histogram = new Histogram(HIGHEST_NANOS, 3);

  /** Records one round trip of {@code nanos}, zero or more. */
  void record(long nanos) {
    if (nanos < 0) {
      throw new IllegalArgumentException("nanos must not be negative, was " + nanos);
    }
    histogram.recordValue(Math.min(nanos, HIGHEST_NANOS));
  }

  /** The number of round trips recorded. */
  long count() {
    return histogram.getTotalCount();
  }

  /** The round trip at {@code percentile} (0 to 100) in nanoseconds; 0 when none was recorded. */
  long atPercentile(double percentile) {
    if (!(percentile >= 0 && percentile <= 100)) {
      throw new IllegalArgumentException("percentile must be in [0, 100], was " + percentile);
    }
    return histogram.getValueAtPercentile(percentile);
  }

  /** The longest round trip recorded, in nanoseconds. */
  long max() {
    return histogram.getMaxValue();
  }

  /** {@code nanos} in milliseconds with two decimals, for the table. */
  static String millis(long nanos) {
    return String.format(java.util.Locale.ROOT, "%.2f", nanos / 1e6);
  }
}
