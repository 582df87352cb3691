package io.slidingwindow.internal;

/**
 * The bucket arithmetic every sliding window of this library shares, as pure functions.
 *
 * <p>Time is a non-negative count of nanoseconds since the window's origin (its first clock read),
 * so that a clock which wraps past {@link Long#MAX_VALUE} cannot disturb the arithmetic. Bucket
 * {@code b(t) = floor(t / precision)}. At time {@code t} a window of length {@code W} counts the
 * buckets {@code b(t - W + 1)} through {@code b(t)}: exactly the buckets that hold at least one
 * instant of {@code (t - W, t]}, so no permit that could share an interval of length {@code W} with
 * a new one is ever left out. These are at most {@code ceil(W / precision) + 1} buckets.
 *
 * <p>A bucket {@code b} stops being counted at {@link #leavesAt}: {@code (b + 1) * precision + W -
 * 1}. Results that would overflow saturate at {@link Long#MAX_VALUE}: such a time is never reached.
 */
public final class WindowMath {

  /**
   * The most runs a window may store, so that its ring of {@code (bucket, count)} pairs fits in one
   * Java array.
   */
  public static final long MAX_RUNS = 1L << 28;

  private WindowMath() {}

  /** The bucket that holds time {@code t}. */
  public static long bucket(long t, long precisionNanos) {
    return Math.floorDiv(t, precisionNanos);
  }

  /** The oldest bucket a window of length {@code windowNanos} counts at time {@code t}. */
  public static long oldestBucket(long t, long windowNanos, long precisionNanos) {
    return Math.floorDiv(t - windowNanos + 1, precisionNanos);
  }

  /** The first time at which bucket {@code b} is no longer counted; saturates. */
  public static long leavesAt(long bucket, long windowNanos, long precisionNanos) {
    return saturatedAdd(bucketEnd(bucket, precisionNanos), windowNanos - 1);
  }

  /**
   * The first time after the non-negative bucket {@code b}: {@code (b + 1) * precision}; saturates.
   */
  public static long bucketEnd(long bucket, long precisionNanos) {
    long next = bucket + 1;
    long end = next * precisionNanos;
    // Both factors are positive: the product overflowed iff its high half is non-zero or it
    // spilled into the sign bit.
    return Math.multiplyHigh(next, precisionNanos) != 0 || end < 0 ? Long.MAX_VALUE : end;
  }

  /** {@code ceil(window / precision)}: how many buckets one window spans. */
  public static long bucketsPerWindow(long windowNanos, long precisionNanos) {
    return -Math.floorDiv(-windowNanos, precisionNanos);
  }

  /**
   * The most runs a window stores: {@code min(permits, ceil(W / p) + 1)}. At most {@code ceil(W /
   * p) + 1} distinct buckets can be counted at once, and each run holds at least one of at most
   * {@code permits} counted permits (see {@link LimitRuns} for the case of counted refusals).
   */
  public static long maxRuns(long permits, long windowNanos, long precisionNanos) {
    return Math.min(permits, saturatedAdd(bucketsPerWindow(windowNanos, precisionNanos), 1));
  }

  /**
   * The most runs a window may store whatever its counts, {@code ceil(W / p) + 1}, at most {@link
   * #MAX_RUNS}: the bound of a window that may hold more than its permits.
   */
  static long maxRuns(long windowNanos, long precisionNanos) {
    return Math.min(MAX_RUNS, saturatedAdd(bucketsPerWindow(windowNanos, precisionNanos), 1));
  }

  /**
   * The oldest of the {@code size} buckets a rolling window counts while {@code currentBucket} is
   * the newest: {@code currentBucket - size + 1}. Unlike a limit's window, which counts every
   * bucket holding an instant of {@code (t - W, t]}, a rolling window counts exactly {@code size}
   * buckets, so at time {@code t} it covers {@code [(b(t) - size + 1) * interval, t]}.
   */
  public static long rollingOldestBucket(long currentBucket, long size) {
    return currentBucket - size + 1;
  }

  /**
   * The first time at which a rolling window of {@code size} buckets no longer counts the
   * non-negative bucket {@code b}: {@code (b + size) * interval}; saturates.
   */
  public static long rollingLeavesAt(long bucket, long size, long intervalNanos) {
    return bucketEnd(saturatedAdd(bucket, size - 1), intervalNanos);
  }

  /** The index in a ring of {@code slots} slots that holds bucket {@code b}. */
  public static int ringSlot(long bucket, int slots) {
    return (int) Math.floorMod(bucket, (long) slots);
  }

  static long saturatedAdd(long a, long b) {
    long sum = a + b;
    return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
  }
}
