package io.slidingwindow;

/**
 * A source of time in nanoseconds, read once per limiter operation.
 *
 * <p>Only differences between two readings are meaningful: limiters compare readings by
 * subtraction, so a ticker whose value wraps past {@link Long#MAX_VALUE} or starts at a negative
 * number works as long as two readings a limiter compares are less than 2<sup>63</sup> ns (about
 * 292 years) apart. A reading smaller than an earlier one is taken as "no time has passed".
 *
 * <p>Implementations must be safe to call from any thread.
 */
@FunctionalInterface
public interface Ticker {

  /** Returns the current time in nanoseconds, relative to an arbitrary fixed origin. */
  long read();

  /** Returns a ticker backed by {@link System#nanoTime()}. */
  static Ticker system() {
    return SystemTicker.INSTANCE;
  }

  /**
   * Returns a cheap, coarse ticker: a reading of {@link System#nanoTime()} that one daemon thread
   * ({@code slidingwindow-coarse-ticker}, started on the first call) refreshes about every
   * millisecond. A read is one volatile load instead of a clock call, at the price of lagging the
   * true time by about a millisecond, more when the machine is overloaded; it never runs ahead.
   * Suits rolling statistics on hot paths (Alibaba Sentinel keeps its clock the same way); a
   * limiter on it keeps its window guarantee in the coarse clock's own time.
   */
  static Ticker coarse() {
    return CoarseTicker.INSTANCE;
  }
}

/** The {@link Ticker#coarse()} ticker; its thread starts when the class is first used. */
@SuppressWarnings("ImmutableEnumChecker") // one clock whose reading a thread of its own refreshes
enum CoarseTicker implements Ticker {
  INSTANCE;

  private static final long REFRESH_NANOS = 1_000_000;

  /** Written by the refresh thread only. */
  private volatile long nanos = System.nanoTime();

  CoarseTicker() {
    Thread refresher = new Thread(this::refresh, "slidingwindow-coarse-ticker");
    refresher.setDaemon(true);
    refresher.start();
  }

  private void refresh() {
    for (; ; ) {
      java.util.concurrent.locks.LockSupport.parkNanos(REFRESH_NANOS);
      nanos = System.nanoTime();
    }
  }

  @Override
  public long read() {
    return nanos;
  }
}

/** The {@link System#nanoTime()} ticker, a singleton so that call sites stay monomorphic. */
enum SystemTicker implements Ticker {
  INSTANCE;

  @Override
  public long read() {
    return System.nanoTime();
  }
}
