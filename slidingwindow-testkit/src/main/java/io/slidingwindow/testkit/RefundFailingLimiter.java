package io.slidingwindow.testkit;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Reservation;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A limiter that decides as the one it wraps, but whose reservations cannot be given back: every
 * refund throws the given {@link Error}, as a backend whose client class failed to load does. For
 * tests of what a web stack does when settling a request fails.
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
  public List<Limit> limits() {
    return windows.limits();
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
