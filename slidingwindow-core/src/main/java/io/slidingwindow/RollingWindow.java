package io.slidingwindow;

import io.slidingwindow.internal.Checks;
import io.slidingwindow.internal.StripedBuckets;
import java.time.Duration;

/**
 * Rolling-window statistics: the sum, count, minimum and maximum of the values added during the
 * last {@code size} buckets of width {@code interval}, as go-zero's {@code RollingWindow} and
 * Sentinel's {@code LeapArray} keep them.
 *
 * <p><b>Which values a snapshot covers.</b> Time {@code t} is nanoseconds since the window's origin
 * (the ticker's first read, when it is built); a reading smaller than the latest one the window has
 * seen, from any thread, counts as that latest one (a clock that goes backwards means no time
 * passed). A value is added to bucket {@code b(t) = floor(t / interval)}. A snapshot taken at time
 * {@code t} covers buckets {@code b(t) - size + 1} through {@code b(t)}: every value added in the
 * time span {@code [(b(t) - size + 1) * interval, t]}, whose length is between {@code (size - 1) *
 * interval} and {@code size * interval}. With {@link Builder#ignoreCurrent(boolean)} (go-zero's
 * {@code IgnoreCurrentBucket}), it covers buckets {@code b(t) - size + 1} through {@code b(t) - 1}
 * only: the span {@code [(b(t) - size + 1) * interval, b(t) * interval)}, {@code size - 1} whole
 * buckets, leaving out the bucket that is still filling. A snapshot's rates divide by the covered
 * buckets at or after the origin only (see {@link RollingSnapshot#length()}).
 *
 * <p><b>Values.</b> Any finite value; sums are {@code double} sums, not guarded against overflow:
 * values near {@link Double#MAX_VALUE} can make a snapshot's sum infinite or NaN (see {@link
 * RollingSnapshot}).
 *
 * <p><b>Thread-safety.</b> Every method may be called from any thread. {@link #add} allocates
 * nothing once the window has adapted to its callers: a thread's first add that finds a window
 * contended or striped creates the thread's stripe index (once per thread, for all windows), and an
 * add that collides may grow the stripes (at most six times over a window's life). {@link
 * #reduce()} includes every add that completed before it began, and an add that runs concurrently
 * with it is included or not, whole (as {@code LongAdder.sum()} treats concurrent updates); with a
 * single caller, or once adds stop, it is exact. Under concurrency an add is counted in the bucket
 * of a time between its own clock read and the latest read of the window.
 *
 * <p><b>Memory.</b> {@code 40 * size} bytes per stripe plus about 300 bytes of headers, padding and
 * the newest bucket's figures; one stripe to start with, and at most one per processor (rounded up
 * to a power of two, at most 64) when adds contend.
 *
 * <p><b>Design.</b> Each bucket is a stamped slot of a ring, so an add never walks over expired
 * buckets and does no division while it stays in the current bucket; contention is met with more
 * rings (stripes) rather than waiting, as {@code LongAdder} does, and a reduce reads the rings
 * without blocking adds. The engine and its memory-ordering notes are in the internal {@code
 * StripedBuckets}. Sentinel's {@code LeapArray} resets a bucket object in place, so an add that
 * fetched the bucket just before the reset can be wiped by it or land in the new period, and its
 * per-bucket adders are summed without a consistent view; go-zero takes one read-write lock for
 * every call. Here an add is never lost to a reset, and a reduce never sees a half-made add.
 */
public final class RollingWindow {

  /** The most buckets a window may have. */
  public static final int MAX_SIZE = 1 << 20;

  /** The processors rounded up to a power of two, at most 64. */
  static final int MAX_STRIPES = StripedBuckets.MAX_STRIPES;

  private final int size;
  private final long intervalNanos;
  private final boolean ignoreCurrent;
  private final Ticker ticker;
  private final long origin;
  private final StripedBuckets buckets;

  private RollingWindow(
      int size, long intervalNanos, boolean ignoreCurrent, Ticker ticker, int stripes) {
    this.size = size;
    this.intervalNanos = intervalNanos;
    this.ignoreCurrent = ignoreCurrent;
    this.ticker = ticker;
    this.buckets = new StripedBuckets(size, intervalNanos, stripes);
    this.origin = ticker.read();
  }

  /** Returns a builder of rolling windows. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Adds {@code value} to the current bucket. Thread-safe; allocates nothing once the window has
   * adapted to its callers: only a thread's first add that finds a window contended or striped, and
   * an add that grows the stripes, allocate (see the class comment).
   *
   * @throws IllegalArgumentException if {@code value} is NaN or infinite
   */
  public void add(double value) {
    Checks.requireArgument(Double.isFinite(value), "value", "be finite", value);
    buckets.add(ticker.read() - origin, value);
  }

  /**
   * Adds {@code value}, converted to a {@code double}: exact for magnitudes up to 2<sup>53</sup>,
   * and so are sums that stay within that bound. Thread-safe; allocates as {@link #add(double)}.
   */
  public void add(long value) {
    add((double) value);
  }

  /**
   * Returns the statistics of the values the window covers now: the buckets {@code b(t) - size + 1}
   * through {@code b(t)}, or through {@code b(t) - 1} when the window ignores the current bucket
   * (see the class comment for the exact time span). Thread-safe: it includes every add that
   * completed before it began; an add that runs concurrently is included or not, whole.
   */
  public RollingSnapshot reduce() {
    StripedBuckets.Totals t = buckets.reduce(ticker.read() - origin, ignoreCurrent);
    return new RollingSnapshot(t.sum(), t.count(), t.min(), t.max(), t.lengthNanos());
  }

  /** The number of buckets. */
  public int size() {
    return size;
  }

  /** The width of one bucket. */
  public Duration interval() {
    return Duration.ofNanos(intervalNanos);
  }

  /** Whether snapshots leave out the bucket that is still filling. */
  public boolean ignoresCurrent() {
    return ignoreCurrent;
  }

  /** For example {@code "RollingWindow[10 x PT0.1S]"}. */
  @Override
  public String toString() {
    return "RollingWindow["
        + size
        + " x "
        + interval()
        + (ignoreCurrent ? ", ignoring the current bucket" : "")
        + "]";
  }

  /**
   * Makes the calling thread's adds go to stripe {@code index} (modulo the number of stripes) until
   * a collision moves it elsewhere; for tests that need adds on known stripes.
   */
  static void useStripe(int index) {
    StripedBuckets.useStripe(index);
  }

  /** Checks a bucket count: between 1 and {@link #MAX_SIZE}. */
  static int checkSize(int size) {
    return (int) Checks.requireBetween(size, 1, MAX_SIZE, "size");
  }

  /** Checks that {@code size} buckets of {@code intervalNanos} (positive) fit in a long. */
  static void checkSpan(int size, long intervalNanos) {
    Checks.requireArgument(
        Math.multiplyHigh(size, intervalNanos) == 0 && size * intervalNanos >= 0,
        "interval",
        "fit " + size + " times in " + Long.MAX_VALUE + " nanoseconds",
        Duration.ofNanos(intervalNanos));
  }

  /**
   * Builds {@link RollingWindow}s. Each setting may be set once: setting it again to a different
   * value throws {@link IllegalStateException}. Not thread-safe.
   */
  public static final class Builder {

    /** go-zero's default bucket count. */
    public static final int DEFAULT_SIZE = 10;

    /** go-zero's default bucket width. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofMillis(100);

    /** Null until set, as the settings below. */
    private Integer size;

    private Duration interval;
    private Boolean ignoreCurrent;
    private Ticker ticker;
    private Integer stripes;

    Builder() {}

    /**
     * Sets the number of buckets, {@value #DEFAULT_SIZE} by default.
     *
     * @throws IllegalArgumentException if {@code size} is not positive or exceeds {@link
     *     RollingWindow#MAX_SIZE}
     * @throws IllegalStateException if a different size was set
     */
    public Builder size(int size) {
      checkSize(size);
      this.size = Checks.setOnce(this.size, size, "size");
      return this;
    }

    /**
     * Sets the width of one bucket, 100 ms by default.
     *
     * @throws IllegalArgumentException if {@code interval} is null, not positive, or longer than
     *     {@link Long#MAX_VALUE} nanoseconds
     * @throws IllegalStateException if a different width was set
     */
    public Builder interval(Duration interval) {
      Checks.requirePositiveNanos(interval, "interval");
      this.interval = Checks.setOnce(this.interval, interval, "interval");
      return this;
    }

    /**
     * Sets whether snapshots leave out the bucket that is still filling (go-zero's {@code
     * IgnoreCurrentBucket}), off by default. Requires at least two buckets.
     *
     * @throws IllegalStateException if it was set to the other value
     */
    public Builder ignoreCurrent(boolean ignoreCurrent) {
      this.ignoreCurrent = Checks.setOnce(this.ignoreCurrent, ignoreCurrent, "ignoreCurrent");
      return this;
    }

    /**
     * Sets the clock, {@link Ticker#coarse()} by default: a read is one volatile load instead of a
     * {@code System.nanoTime()} call (about 25 ns), and the reading lags true time by about a
     * millisecond, which moves a value into the previous bucket only when it is added within that
     * lag of a bucket's start. Pass {@link Ticker#system()} for exact bucket edges. The clock is
     * read once when the window is built (its origin) and once per operation.
     *
     * @throws IllegalArgumentException if {@code ticker} is null
     * @throws IllegalStateException if another ticker was set
     */
    public Builder ticker(Ticker ticker) {
      Checks.requireNonNull(ticker, "ticker");
      this.ticker = Checks.setOnce(this.ticker, ticker, "ticker");
      return this;
    }

    /**
     * Starts the window with {@code stripes} stripes instead of one, as if adds had already
     * collided; for tests that need several stripes whatever the machine.
     *
     * @throws IllegalArgumentException if {@code stripes} is not a power of two between 1 and 64
     */
    Builder stripes(int stripes) {
      Checks.requireArgument(
          stripes >= 1 && stripes <= 64 && Integer.bitCount(stripes) == 1,
          "stripes",
          "be a power of two between 1 and 64",
          stripes);
      this.stripes = Checks.setOnce(this.stripes, stripes, "stripes");
      return this;
    }

    /**
     * Builds the window and reads its clock once, as the origin of its buckets.
     *
     * @throws IllegalArgumentException if {@code size * interval} exceeds {@link Long#MAX_VALUE}
     *     nanoseconds, or the window ignores the current bucket and has fewer than two
     */
    public RollingWindow build() {
      int n = size == null ? DEFAULT_SIZE : size;
      long intervalNanos = (interval == null ? DEFAULT_INTERVAL : interval).toNanos();
      boolean ignoring = ignoreCurrent != null && ignoreCurrent;
      checkSpan(n, intervalNanos);
      Checks.requireArgument(
          !ignoring || n >= 2, "size", "be at least 2 to ignore the current bucket", n);
      return new RollingWindow(
          n,
          intervalNanos,
          ignoring,
          ticker == null ? Ticker.coarse() : ticker,
          stripes == null ? 1 : stripes);
    }
  }
}
