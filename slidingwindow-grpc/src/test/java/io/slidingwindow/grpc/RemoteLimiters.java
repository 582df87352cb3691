package io.slidingwindow.grpc;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
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
 * on the given ticker. Every key asked for and the thread that asked are recorded.
 */
final class RemoteLimiters implements RateLimiterFactory, AutoCloseable {

  final ConcurrentLinkedQueue<String> keys = new ConcurrentLinkedQueue<>();
  final ConcurrentLinkedQueue<String> callerThreads = new ConcurrentLinkedQueue<>();
  private final RateLimiterFactory local;
  private final ExecutorService backend =
      Executors.newSingleThreadExecutor(runnable -> new Thread(runnable, "backend"));

  RemoteLimiters(Ticker ticker) {
    this.local = RateLimiterFactory.inMemory(ticker, 1_000);
  }

  @Override
  public KeyedRateLimiter<String> create(
      String ruleName, List<Limit> limits, boolean countRefusedAttempts) {
    KeyedRateLimiter<String> windows = local.create(ruleName, limits, countRefusedAttempts);
    return new KeyedRateLimiter<>() {
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
        return CompletableFuture.supplyAsync(() -> windows.decide(key, permits), backend);
      }

      @Override
      public List<Limit> limits() {
        return windows.limits();
      }
    };
  }

  @Override
  public void close() {
    backend.shutdownNow();
  }
}
