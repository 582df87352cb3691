package io.slidingwindow.testkit;

import io.slidingwindow.Ticker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link Ticker} that moves only when told to, for tests that must not sleep. Thread-safe.
 *
 * <p>Its value may start anywhere, negative or close to {@link Long#MAX_VALUE}, and wraps on
 * overflow as {@link System#nanoTime()} may: limiters must cope.
 */
public final class FakeTicker implements Ticker {

  private final AtomicLong nanos;

  /** A ticker that reads {@code 0} until advanced. */
  public FakeTicker() {
    this(0);
  }

  /** A ticker that reads {@code startNanos} until advanced. */
  public FakeTicker(long startNanos) {
    this.nanos = new AtomicLong(startNanos);
  }

  @Override
  public long read() {
    return nanos.get();
  }

  /** Moves the clock forward by {@code nanos} (backward if negative), wrapping on overflow. */
  public FakeTicker advance(long nanos) {
    this.nanos.addAndGet(nanos);
    return this;
  }

  /** Moves the clock forward by {@code duration}. */
  public FakeTicker advance(Duration duration) {
    return advance(duration.toNanos());
  }

  /** Sets the clock to {@code nanos}. */
  public FakeTicker set(long nanos) {
    this.nanos.set(nanos);
    return this;
  }

  @Override
  public String toString() {
    return "FakeTicker[" + nanos.get() + " ns]";
  }
}
