package io.slidingwindow.spring.boot.internal;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.PlanResolver;
import io.slidingwindow.http.RateLimiterFactory;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A {@link RateLimiterFactory} that remembers every limiter it creates and calls {@link
 * KeyedRateLimiter#cleanUp()} on each of them every {@code slidingwindow.http.cleanup-interval}.
 *
 * <p>Why: an in-memory limiter evicts expired keys only a few at a time as new keys arrive, so
 * after a flood of made-up keys its table would stay at its high point until new traffic comes. The
 * cleanup runs on one daemon thread of its own, with a fixed delay between runs (a slow run never
 * piles up), and stops when the application context closes ({@link #close()}). A limiter that
 * throws is logged and does not keep the others from being cleaned. Thread-safe.
 */
public final class CleaningRateLimiterFactory implements RateLimiterFactory, AutoCloseable {

  private static final System.Logger LOG =
      System.getLogger(CleaningRateLimiterFactory.class.getName());

  private final RateLimiterFactory delegate;
  private final List<KeyedRateLimiter<String>> limiters = new CopyOnWriteArrayList<>();
  private final ScheduledExecutorService scheduler;

  /**
   * Wraps {@code delegate}, cleaning its limiters every {@code interval} on {@code scheduler}, or
   * never if {@code interval} is zero (then {@code scheduler} may be null).
   *
   * @throws IllegalArgumentException if {@code interval} is null or negative
   */
  CleaningRateLimiterFactory(
      RateLimiterFactory delegate, Duration interval, ScheduledExecutorService scheduler) {
    if (interval == null || interval.isNegative()) {
      throw new IllegalArgumentException(
          "cleanupInterval must be zero (off) or positive, was " + interval);
    }
    this.delegate = delegate;
    this.scheduler = interval.isZero() ? null : scheduler;
    if (this.scheduler != null) {
      long nanos = interval.toNanos();
      var unused =
          this.scheduler.scheduleWithFixedDelay(this::cleanUp, nanos, nanos, TimeUnit.NANOSECONDS);
    }
  }

  /**
   * As {@link #CleaningRateLimiterFactory(RateLimiterFactory, Duration, ScheduledExecutorService)}
   * on a daemon thread of its own, started only if {@code interval} is positive.
   */
  static CleaningRateLimiterFactory every(Duration interval, RateLimiterFactory delegate) {
    boolean on = interval != null && !interval.isNegative() && !interval.isZero();
    return new CleaningRateLimiterFactory(delegate, interval, on ? daemonScheduler() : null);
  }

  private static ScheduledExecutorService daemonScheduler() {
    ScheduledThreadPoolExecutor executor =
        new ScheduledThreadPoolExecutor(
            1,
            runnable -> {
              Thread thread = Executors.defaultThreadFactory().newThread(runnable);
              thread.setName("slidingwindow-key-cleanup");
              thread.setDaemon(true);
              return thread;
            });
    executor.setRemoveOnCancelPolicy(true);
    return executor;
  }

  @Override
  public KeyedRateLimiter<String> create(
      String ruleName, List<Limit> limits, boolean countRefusedAttempts) {
    return create(ruleName, limits, countRefusedAttempts, null);
  }

  @Override
  public KeyedRateLimiter<String> create(
      String ruleName,
      List<Limit> limits,
      boolean countRefusedAttempts,
      PlanResolver<String> plans) {
    KeyedRateLimiter<String> limiter =
        plans == null
            ? delegate.create(ruleName, limits, countRefusedAttempts)
            : delegate.create(ruleName, limits, countRefusedAttempts, plans);
    if (limiter != null) {
      limiters.add(limiter);
    }
    return limiter;
  }

  /** Stops cleaning {@code limiter}, which is out of service. */
  @Override
  public void release(KeyedRateLimiter<String> limiter) {
    limiters.remove(limiter);
  }

  /** Evicts, in every limiter created so far, each key whose windows count no permit: the task. */
  void cleanUp() {
    for (KeyedRateLimiter<String> limiter : limiters) {
      try {
        limiter.cleanUp();
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "key cleanup of a rate limiter failed", e);
      }
    }
  }

  /** Whether a cleanup is scheduled (false when the interval is zero or after {@link #close()}). */
  public boolean scheduled() {
    return scheduler != null && !scheduler.isShutdown();
  }

  /** Stops the cleanup; a run in progress finishes. */
  @Override
  public void close() {
    if (scheduler != null) {
      scheduler.shutdown(); // cancels the periodic task
    }
  }

  @Override
  public String toString() {
    return "CleaningRateLimiterFactory[" + delegate + ", " + limiters.size() + " limiters]";
  }
}
