package io.slidingwindow;

import io.slidingwindow.internal.Checks;
import io.slidingwindow.internal.KeyLimits;
import io.slidingwindow.internal.Permits;
import io.slidingwindow.internal.Sleeper;
import java.time.Duration;
import java.util.List;

/**
 * The in-process {@link RateLimiter}: one {@link KeyLimits} under one lock.
 *
 * <p>Refusals without the lock. Once some limit has no permit left, nothing but time frees one, and
 * not before that limit's oldest run leaves the window. Every operation under the lock publishes
 * that time, as of the latest time seen, in the volatile {@code refusingUntil} (or MIN_VALUE when
 * no limit is full); until then {@link #tryAcquire(long)} refuses after one volatile read, without
 * taking the lock. It is what the lock would decide: only lock-free refusals happen between two
 * publications and they change nothing, so at any time, including a stale or backward reading
 * (which the lock would take as the latest time), the window is still full before {@code
 * refusingUntil}. The volatile is written only when its value changes, so a grant path that leaves
 * no limit full pays one volatile read. Not used when refused attempts are counted, since those
 * must be recorded.
 */
final class LocalRateLimiter implements RateLimiter {

  private final List<Limit> limits;
  private final long largestGrantable;
  private final long largestPermits;
  private final Ticker ticker;
  private final Sleeper sleeper;
  private final long origin;
  private final boolean countRefused;

  /** Guarded by itself. */
  private final KeyLimits state;

  /** Written under the lock, read without it; see the class comment. */
  private volatile long refusingUntil = Long.MIN_VALUE;

  LocalRateLimiter(
      List<Limit> limits,
      boolean countRefused,
      Ticker ticker,
      long anchorEpochNanos,
      Sleeper sleeper) {
    this.limits = limits;
    this.largestGrantable = Permits.largestGrantable(limits);
    this.largestPermits = Permits.largestPermits(limits);
    this.ticker = ticker;
    this.sleeper = sleeper;
    this.countRefused = countRefused;
    this.state = KeyLimits.factory(limits, countRefused, anchorEpochNanos).apply(0);
    this.origin = ticker.read();
  }

  @Override
  public boolean tryAcquire(long permits) {
    Permits.check(permits, largestGrantable);
    // Read outside the lock: a thread that reads earlier but locks later is clamped to the latest
    // time seen, so the timestamps the windows record never decrease.
    long now = ticker.read() - origin;
    if (now < refusingUntil) {
      return false;
    }
    synchronized (state) {
      boolean granted = state.tryAcquire(now, permits);
      publishRefusingUntil();
      return granted;
    }
  }

  /** Publishes when the state stops refusing everything; holds the lock. */
  private void publishRefusingUntil() {
    if (!countRefused) {
      long until = state.refusingUntil();
      if (until != refusingUntil) {
        refusingUntil = until;
      }
    }
  }

  @Override
  public Decision decide(long permits) {
    Permits.check(permits, largestGrantable);
    long now = ticker.read() - origin;
    synchronized (state) {
      Decision decision = state.decide(now, permits);
      publishRefusingUntil();
      return decision;
    }
  }

  @Override
  public boolean acquire(long permits, Duration timeout) throws InterruptedException {
    Permits.check(permits, largestGrantable);
    Checks.requireNonNull(timeout, "timeout");
    long timeoutNanos = saturatedNanos(timeout);
    long start = ticker.read();
    for (long read = start; ; read = ticker.read()) {
      long wait;
      synchronized (state) {
        wait = state.tryAcquireOrRetryNanos(read - origin, permits);
        publishRefusingUntil();
      }
      if (wait == 0) {
        return true;
      }
      long left = timeoutNanos - Math.max(0, read - start);
      if (wait > left) {
        return false;
      }
      sleeper.sleep(wait);
    }
  }

  @Override
  public List<Limit> limits() {
    return limits;
  }

  @Override
  public Quota peek() {
    long now = ticker.read() - origin;
    synchronized (state) {
      Quota quota = state.peek(now);
      publishRefusingUntil();
      return quota;
    }
  }

  @Override
  public void reset() {
    long now = ticker.read() - origin;
    synchronized (state) {
      state.reset(now);
      publishRefusingUntil();
    }
  }

  @Override
  public Quota refund(long permits) {
    Permits.checkRefund(permits, largestPermits);
    if (countRefused) {
      throw new UnsupportedOperationException(
          "refund: this limiter counts refused attempts, whose stored runs cannot give permits"
              + " back");
    }
    long now = ticker.read() - origin;
    synchronized (state) {
      Quota quota = state.refund(now, permits);
      publishRefusingUntil();
      return quota;
    }
  }

  @Override
  public Reservation reserve(long permits) {
    Permits.check(permits, largestGrantable);
    long now = ticker.read() - origin;
    Decision decision;
    long stamp;
    synchronized (state) {
      decision = state.decide(now, permits);
      stamp = state.latest();
      publishRefusingUntil();
    }
    if (countRefused || !decision.allowed()) {
      return Reservation.nonRefundable(decision);
    }
    return Reservation.refundable(
        decision,
        Reservation.Refunder.inProcess(
            () -> {
              long at = ticker.read() - origin;
              synchronized (state) {
                state.refundAt(at, stamp, permits);
                publishRefusingUntil();
              }
            }));
  }

  /** The runs stored per limit; for tests of the memory bound. */
  int[] storedRuns() {
    synchronized (state) {
      return state.storedRuns();
    }
  }

  @Override
  public String toString() {
    return "RateLimiter" + limits;
  }

  private static long saturatedNanos(Duration d) {
    if (d.isNegative()) {
      return 0;
    }
    try {
      return d.toNanos();
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE;
    }
  }
}
