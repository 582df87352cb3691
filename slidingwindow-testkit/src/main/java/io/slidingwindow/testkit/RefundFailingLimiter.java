package io.slidingwindow.testkit;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Plan;
import io.slidingwindow.Quota;
import io.slidingwindow.Reservation;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A limiter that answers as the one it wraps (decisions with or without a group, peeks, resets,
 * plans), except that nothing can be given back: every refund, of a reservation or of a key's
 * newest permits, throws the given {@link Error}, as a backend whose client class failed to load
 * does. For tests of what a web stack does when settling a request fails.
 */
public final class RefundFailingLimiter implements KeyedRateLimiter<String> {

  /** How the asynchronous refund fails. */
  public enum Async {
    /** {@code refundAsync()} returns a stage already failed with the error. */
    FAILED_STAGE,
    /** {@code refundAsync()} throws the error at once, before returning a stage. */
    THROWN
  }

  private final KeyedRateLimiter<String> windows;
  private final Error error;
  private final Async async;
  private final AtomicInteger refundsAsked = new AtomicInteger();

  /** Decides as {@code windows}; every refund of its reservations fails with {@code error}. */
  public RefundFailingLimiter(KeyedRateLimiter<String> windows, Error error, Async async) {
    this.windows = Objects.requireNonNull(windows, "windows");
    this.error = Objects.requireNonNull(error, "error");
    this.async = Objects.requireNonNull(async, "async");
  }

  @Override
  public boolean tryAcquire(String key, long permits) {
    return windows.tryAcquire(key, permits);
  }

  @Override
  public Decision decide(String key, long permits) {
    return windows.decide(key, permits);
  }

  @Override
  public CompletionStage<Decision> decideAsync(String key, long permits) {
    return windows.decideAsync(key, permits);
  }

  @Override
  public Decision decide(String key, String group, long permits) {
    return windows.decide(key, group, permits);
  }

  @Override
  public CompletionStage<Decision> decideAsync(String key, String group, long permits) {
    return windows.decideAsync(key, group, permits);
  }

  @Override
  public List<Limit> limits() {
    return windows.limits();
  }

  @Override
  public Quota peek(String key) {
    return windows.peek(key);
  }

  @Override
  public CompletionStage<Quota> peekAsync(String key) {
    return windows.peekAsync(key);
  }

  @Override
  public void reset(String key) {
    windows.reset(key);
  }

  @Override
  public CompletionStage<Void> resetAsync(String key) {
    return windows.resetAsync(key);
  }

  @Override
  public Plan planOf(String key) {
    return windows.planOf(key);
  }

  @Override
  public void refreshPlans() {
    windows.refreshPlans();
  }

  @Override
  public void cleanUp() {
    windows.cleanUp();
  }

  /** Throws the error, as the refunds of reservations do (counted as one asked for). */
  @Override
  public Quota refund(String key, long permits) {
    refundsAsked.incrementAndGet();
    throw error;
  }

  /** Throws the error at once, or returns a stage failed with it, as {@link Async} says. */
  @Override
  public CompletionStage<Quota> refundAsync(String key, long permits) {
    refundsAsked.incrementAndGet();
    if (async == Async.THROWN) {
      throw error;
    }
    return CompletableFuture.failedFuture(error);
  }

  @Override
  public Reservation reserve(String key, String group, long permits) {
    Reservation reserved = windows.reserve(key, group, permits);
    if (!reserved.isRefundable()) {
      return reserved;
    }
    return Reservation.refundable(
        reserved.decision(),
        new Reservation.Refunder() {
          @Override
          public void refund() {
            refundsAsked.incrementAndGet();
            throw error;
          }

          @Override
          public CompletionStage<Void> refundAsync() {
            refundsAsked.incrementAndGet();
            if (async == Async.THROWN) {
              throw error;
            }
            return CompletableFuture.failedFuture(error);
          }
        });
  }

  /** How many times a reservation of this limiter was asked to give its permits back. */
  public int refundsAsked() {
    return refundsAsked.get();
  }

  /** The reservation of {@link #reserve}, answered at once. */
  @Override
  public CompletionStage<Reservation> reserveAsync(String key, String group, long permits) {
    return CompletableFuture.completedFuture(reserve(key, group, permits));
  }
}
