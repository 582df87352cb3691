package io.slidingwindow;

import io.slidingwindow.internal.Checks;
import io.slidingwindow.internal.Sleeper;
import java.time.Duration;
import java.util.List;

/**
 * A sliding-window rate limiter for one key: for every interval {@code [t, t + W)} of its clock and
 * every one of its limits, the permits it grants with timestamps in that interval sum to at most
 * that limit's {@code N}.
 *
 * <p>Several limits are checked and recorded atomically: a request is granted only if every limit
 * allows it, and only granted permits are counted, unless the limiter was built with {@link
 * Builder#countRefusedAttempts(boolean)}. A request is refused only if an exact sliding log over
 * {@code W + precision} would refuse it too. Memory is bounded per limit by {@link
 * Limit#maxStoredRuns()} runs of 8 or 16 bytes, whatever the request rate.
 *
 * <p>Instances built by {@link #builder()} are thread-safe, and every operation is atomic: each
 * takes one lock per limiter, except that {@link #tryAcquire(long)} refuses without it while a
 * limit is known to be full. The clock is read once per operation, before the lock; a caller that
 * reads an earlier time but takes the lock later is counted at the latest time seen. (A refusal
 * without the lock does not record its reading: if the clock then steps back, later figures are
 * measured from the latest recorded time, so a {@code retryAfter} may come out late, never early.)
 *
 * <p>Not meant to be implemented outside this project: the library's one implementation is the
 * in-process limiter that {@link #builder()} returns, and later versions may add abstract methods
 * to this interface. A backend of an application's own implements {@link KeyedRateLimiter} instead,
 * whose defaults leave room for that, and which the testkit's conformance classes check.
 */
public interface RateLimiter {

  /** Tries to take one permit; as {@link #tryAcquire(long)}. */
  default boolean tryAcquire() {
    return tryAcquire(1);
  }

  /**
   * Takes {@code permits} now if every limit allows them. Allocates nothing.
   *
   * @return whether the permits were granted
   * @throws IllegalArgumentException if {@code permits} is not positive or exceeds a limit's {@code
   *     N}
   */
  boolean tryAcquire(long permits);

  /**
   * As {@link #tryAcquire(long)}, and says why, how much is left and when to retry.
   *
   * @throws IllegalArgumentException if {@code permits} is not positive or exceeds a limit's {@code
   *     N}
   */
  Decision decide(long permits);

  /**
   * Takes {@code permits}, waiting up to {@code timeout} for them. It waits only when the request's
   * exact {@link Decision#retryAfter()} fits in the time left, so it returns {@code false} at once
   * when the permits cannot come in time, and waits again if other callers took them first.
   *
   * @return whether the permits were granted
   * @throws IllegalArgumentException if {@code permits} is invalid or {@code timeout} is null
   * @throws InterruptedException if the thread is interrupted while waiting; nothing was granted
   */
  boolean acquire(long permits, Duration timeout) throws InterruptedException;

  /** The limits, in the order they were added. */
  List<Limit> limits();

  /** What is left of each limit now, without taking anything; as {@link KeyedRateLimiter#peek}. */
  Quota peek();

  /**
   * Forgets every recorded permit; as {@link KeyedRateLimiter#reset}. An administrator's operation:
   * never reachable by whoever the limit holds back.
   */
  void reset();

  /**
   * Takes back up to {@code permits} of the newest recorded permits of each limit; as {@link
   * KeyedRateLimiter#refund}, which states which permits go and why the guarantee holds for those
   * that stay. An administrator's operation.
   *
   * @return what is left afterwards
   * @throws IllegalArgumentException if {@code permits} is not positive or exceeds the largest
   *     limit
   * @throws UnsupportedOperationException if refused attempts count
   */
  Quota refund(long permits);

  /**
   * Takes {@code permits} as {@link #decide} does, and returns a {@link Reservation} that can give
   * exactly those back once (reserve now, refund later: see {@link Reservation}).
   *
   * @throws IllegalArgumentException as {@link #decide}
   */
  Reservation reserve(long permits);

  /** Returns a builder of in-process limiters. */
  static Builder builder() {
    return new Builder();
  }

  /**
   * Builds in-process {@link RateLimiter}s. Each setting may be set once: setting it again to a
   * different value throws {@link IllegalStateException}. Not thread-safe.
   */
  final class Builder extends LimiterBuilder<Builder> {

    /** Null until set. */
    private Sleeper sleeper;

    Builder() {}

    /** Replaces how {@link #acquire} waits; for tests that drive a fake clock. */
    Builder sleeper(Sleeper sleeper) {
      this.sleeper = Checks.setOnce(this.sleeper, sleeper, "sleeper");
      return this;
    }

    /**
     * Builds the limiter and reads its clock once, as the origin of its buckets.
     *
     * @throws IllegalArgumentException if no limit was added, or a limit's stored runs could not
     *     fit in memory (an exact limit of more than 2<sup>28</sup> permits)
     */
    public RateLimiter build() {
      return new LocalRateLimiter(
          validatedLimits(),
          countsRefusedAttempts(),
          ticker(),
          anchorEpochNanos(),
          sleeper == null ? Sleeper.SYSTEM : sleeper);
    }
  }
}
