package io.slidingwindow;

import io.slidingwindow.internal.Checks;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A decision whose recorded permits can be given back exactly, once: what {@link
 * KeyedRateLimiter#reserve(Object, Object, long)} returns, for counting after the fact.
 *
 * <p>Counting after the fact (a rule that counts only failed logins, or only answers of status 400
 * and up) is built as reserve now, refund later: each request reserves its permits before it runs,
 * exactly as {@link KeyedRateLimiter#decide} takes them, and is refused when they do not fit; once
 * the answer is known, a request that should not count is refunded. So a request in flight always
 * counts, and concurrent requests can never together pass more than the limit allows: what stays
 * recorded is the requests that counted plus those still in flight, and the limit holds for it (see
 * {@link KeyedRateLimiter#refund(Object, long)} for why removing permits keeps it). Counting only
 * after the answer instead would let any number of concurrent requests through before the first of
 * them is counted.
 *
 * <p>{@link #refund()} takes back exactly these permits: from each limit's bucket (or calendar
 * period) that holds the moment they were recorded, not the newest permits of the key, so that a
 * refund never removes another request's permits and an interval holds at most {@code N} permits of
 * the requests that counted. Permits whose bucket has left a window no longer count there, and
 * nothing is taken back from it. If the key's limits changed since (see {@link Plan}), a seeded
 * window may have put the permits elsewhere, and then takes back less; never more.
 *
 * <p>Thread-safe: of concurrent and repeated refunds only the first acts.
 */
public final class Reservation {

  /**
   * How a backend gives a reservation's permits back: written once per backend, called at most once
   * per reservation.
   */
  public interface Refunder {

    /** Gives the permits back, waiting for the backend. */
    void refund();

    /** Gives the permits back without blocking; the stage completes when the backend has. */
    CompletionStage<Void> refundAsync();

    /**
     * A refunder for a backend that never waits for anything but a brief lock (in process): {@code
     * refund} runs on the calling thread in both forms.
     */
    static Refunder inProcess(Runnable refund) {
      return new Refunder() {
        @Override
        public void refund() {
          refund.run();
        }

        @Override
        public CompletionStage<Void> refundAsync() {
          refund.run();
          return CompletableFuture.completedFuture(null);
        }
      };
    }
  }

  private final Decision decision;

  /** Null when nothing can be given back. */
  private final Refunder refunder;

  private final AtomicBoolean spent = new AtomicBoolean();

  private Reservation(Decision decision, Refunder refunder) {
    this.decision = Checks.requireNonNull(decision, "decision");
    this.refunder = refunder;
  }

  /**
   * A reservation whose permits were recorded and that {@code refunder} can give back.
   *
   * @throws IllegalArgumentException if an argument is null
   */
  public static Reservation refundable(Decision decision, Refunder refunder) {
    return new Reservation(decision, Checks.requireNonNull(refunder, "refunder"));
  }

  /**
   * A reservation with nothing to give back: a refusal, a grant that was not counted (a failure
   * policy's or a full key table's), or a limiter that cannot refund.
   *
   * @throws IllegalArgumentException if {@code decision} is null
   */
  public static Reservation nonRefundable(Decision decision) {
    return new Reservation(decision, null);
  }

  /** The decision: whether the permits were granted, with its figures. */
  public Decision decision() {
    return decision;
  }

  /**
   * Whether {@link #refund()} would give permits back now: they were recorded, not yet refunded.
   */
  public boolean isRefundable() {
    return refunder != null && !spent.get();
  }

  /**
   * Gives the reserved permits back, unless they were not recorded or are given back already.
   *
   * @return whether this call gave them back
   * @throws RuntimeException what the backend throws when it cannot (the Redis limiter's {@code
   *     RedisCallException}); the permits may then stay recorded (which never grants more) or have
   *     been given back by a call that ran before its reply was lost, never twice: the reservation
   *     counts as spent, and the backend does not send a failed call again
   */
  public boolean refund() {
    if (!claim()) {
      return false;
    }
    refunder.refund();
    return true;
  }

  /**
   * As {@link #refund()}, without blocking: the stage completes with whether this call gave the
   * permits back, or exceptionally with the backend's failure.
   */
  public CompletionStage<Boolean> refundAsync() {
    if (!claim()) {
      return CompletableFuture.completedFuture(false);
    }
    return refunder.refundAsync().thenApply(done -> true);
  }

  private boolean claim() {
    return refunder != null && spent.compareAndSet(false, true);
  }

  @Override
  public String toString() {
    return "Reservation[" + decision + (isRefundable() ? ", refundable]" : "]");
  }
}
