package io.slidingwindow.redis;

import io.slidingwindow.Ticker;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A consecutive-failure circuit breaker, so that a dead Redis is not hammered.
 *
 * <p>Closed, it lets every call through and counts consecutive failures; the {@code
 * failureThreshold}-th opens it. Open, it lets nothing through for {@code openNanos} of its ticker.
 * Then it is half-open: exactly one caller (the one that wins a compare-and-set) probes Redis, and
 * the others are still turned away; the probe's success closes the breaker, its failure opens it
 * for another {@code openNanos}. Times are compared by subtraction, so any ticker origin works.
 *
 * <p>Thread-safe and lock-free: {@code openedAt} holds the time the breaker opened, or is ignored
 * while {@code state} is CLOSED.
 */
final class CircuitBreaker {

  private static final int CLOSED = 0;
  private static final int OPEN = 1;
  private static final int PROBING = 2;

  private final int failureThreshold;
  private final long openNanos;
  private final Ticker ticker;

  private final AtomicInteger state = new AtomicInteger(CLOSED);
  private final AtomicInteger failures = new AtomicInteger();
  private final AtomicLong openedAt = new AtomicLong();

  CircuitBreaker(int failureThreshold, long openNanos, Ticker ticker) {
    this.failureThreshold = failureThreshold;
    this.openNanos = openNanos;
    this.ticker = ticker;
  }

  /**
   * Whether a call may go to Redis now. A caller that gets {@code true} must report its outcome.
   */
  boolean tryPass() {
    int s = state.get();
    if (s == CLOSED) {
      return true;
    }
    if (s == OPEN && ticker.read() - openedAt.get() >= openNanos) {
      return state.compareAndSet(OPEN, PROBING);
    }
    return false;
  }

  /** Reports a call that Redis answered. */
  void onSuccess() {
    failures.set(0);
    if (state.get() != CLOSED) {
      state.set(CLOSED);
    }
  }

  /** Reports a call that failed or timed out. */
  void onFailure() {
    if (state.get() == PROBING) {
      openedAt.set(ticker.read());
      state.set(OPEN);
      return;
    }
    if (failures.incrementAndGet() >= failureThreshold && state.get() == CLOSED) {
      // Written before the state so that a reader who sees OPEN sees this opening time.
      openedAt.set(ticker.read());
      if (state.compareAndSet(CLOSED, OPEN)) {
        failures.set(0);
      }
    }
  }

  /** How long, from now, until the breaker lets a probe through; zero unless it is open. */
  long nanosUntilProbe() {
    if (state.get() != OPEN) {
      return 0;
    }
    return Math.max(0, openNanos - (ticker.read() - openedAt.get()));
  }

  boolean isOpen() {
    return state.get() != CLOSED;
  }
}
