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
}

/** The {@link System#nanoTime()} ticker, a singleton so that call sites stay monomorphic. */
enum SystemTicker implements Ticker {
  INSTANCE;

  @Override
  public long read() {
    return System.nanoTime();
  }
}
