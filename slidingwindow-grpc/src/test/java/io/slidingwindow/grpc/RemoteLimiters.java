package io.slidingwindow.grpc;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Reservation;
import io.slidingwindow.Ticker;
import io.slidingwindow.http.RateLimiterFactory;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A backend that answers as a remote one does: {@link KeyedRateLimiter#decideAsync} completes on a
 * thread of its own ("backend"), after the calling thread has returned; {@link
 * KeyedRateLimiter#decide} fails, so that a caller that blocks is caught. The windows are in memory
 * on the given ticker. Every key asked for and the thread that asked are recorded. Made {@link
 * #refunding}, it also reserves and refunds so (the blocking forms fail), and records each refund.
 * {@link #hold()} keeps the decisions asked for from then on from completing until the test lets
 * them.
 */
final class RemoteLimiters implements RateLimiterFactory, AutoCloseable {

  final ConcurrentLinkedQueue<String> keys = new ConcurrentLinkedQueue<>();
  final ConcurrentLinkedQueue<String> callerThreads = new ConcurrentLinkedQueue<>();

  /** The thread that asked for each refund, once the backend has made it. */
  final ConcurrentLinkedQueue<String> refunds = new ConcurrentLinkedQueue<>();

  private final RateLimiterFactory local;
  private final boolean refunding;

  /** What the decisions asked for wait for before the backend makes them. */
  private volatile CompletableFuture<Void> held = CompletableFuture.completedFuture(null);

  private final ExecutorService backend =
      Executors.newSingleThreadExecutor(runnable -> new Thread(runnable, "backend"));

  /** A backend that cannot give permits back. */
  RemoteLimiters(Ticker ticker) {
    this(ticker, false);
  }

  private RemoteLimiters(Ticker ticker, boolean refunding) {
    this.local = RateLimiterFactory.inMemory(ticker, 1_000);
    this.refunding = refunding;
  }

  /** A backend that reserves and gives permits back, only asynchronously. */
  static RemoteLimiters refunding(Ticker ticker) {
    return new RemoteLimiters(ticker, true);
  }

  /**
   * Holds every decision asked for from now on until the returned action runs; then the backend
   * makes them on its thread, as it makes every other.
   */
  Runnable hold() {
    CompletableFuture<Void> gate = new CompletableFuture<>();
    held = gate;
    return () -> gate.complete(null);
  }

  @Override
  public KeyedRateLimiter<String> create(
      String ruleName, List<Limit> limits, boolean countRefusedAttempts) {
    KeyedRateLimiter<String> windows = local.create(ruleName, limits, countRefusedAttempts);
    return refunding ? new Reserving(windows) : new Deciding(windows);
  }

  /** Decides remotely; implements neither {@code reserve} nor {@code refund}. */
  private class Deciding implements KeyedRateLimiter<String> {
    final KeyedRateLimiter<String> windows;

    Deciding(KeyedRateLimiter<String> windows) {
      this.windows = windows;
    }

    @Override
    public boolean tryAcquire(String key, long permits) {
      throw new IllegalStateException("blocking call on a remote backend");
    }

    @Override
    public Decision decide(String key, long permits) {
      throw new IllegalStateException("blocking call on a remote backend");
    }

    @Override
    public CompletionStage<Decision> decideAsync(String key, long permits) {
      keys.add(key);
      callerThreads.add(Thread.currentThread().getName());
      return held.thenApplyAsync(unused -> windows.decide(key, permits), backend);
    }

    @Override
    public List<Limit> limits() {
      return windows.limits();
    }
  }

  /** Decides and reserves remotely, and gives reservations back so. */
  private final class Reserving extends Deciding {

    Reserving(KeyedRateLimiter<String> windows) {
      super(windows);
    }

    @Override
    public Reservation reserve(String key, String group, long permits) {
      throw new IllegalStateException("blocking call on a remote backend");
    }

    @Override
    public CompletionStage<Reservation> reserveAsync(String key, String group, long permits) {
      keys.add(key);
      callerThreads.add(Thread.currentThread().getName());
      return held.thenApplyAsync(unused -> remotely(windows.reserve(key, group, permits)), backend);
    }
  }

  /** {@code reservation}, given back on the backend's thread; its blocking refund fails. */
  private Reservation remotely(Reservation reservation) {
    if (!reservation.isRefundable()) {
      return reservation;
    }
    return Reservation.refundable(
        reservation.decision(),
        new Reservation.Refunder() {
          @Override
          public void refund() {
            throw new IllegalStateException("blocking refund on a remote backend");
          }

          @Override
          public CompletionStage<Void> refundAsync() {
            String caller = Thread.currentThread().getName();
            return CompletableFuture.runAsync(
                () -> {
                  reservation.refund();
                  refunds.add(caller);
                },
                backend);
          }
        });
  }

  @Override
  public void close() {
    backend.shutdownNow();
  }
}
