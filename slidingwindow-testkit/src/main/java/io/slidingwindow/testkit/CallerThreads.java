package io.slidingwindow.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/**
 * Threads that call something in a loop, as a load under which a test breaks a server, until the
 * test stops them or their time bound passes. The loop is bounded by time rather than by a count of
 * calls: a call that the failure policy answers locally takes well under a microsecond, so a count
 * that lasts long enough while a server answers can run out in a second while it is down, and the
 * load would be gone when the test looks for its recovery. Each call's exception is kept (a limiter
 * must not throw for a Redis failure) and the slowest call is timed. Thread-safe.
 */
public final class CallerThreads implements AutoCloseable {

  /** How long the threads call at most, unless told otherwise. */
  public static final Duration DEFAULT_BOUND = Duration.ofMinutes(5);

  /** How long {@link #stop()} waits for each thread to finish its current call. */
  public static final Duration STOP_BOUND = Duration.ofSeconds(30);

  /**
   * One call of thread {@code thread} (numbered from 0); {@code index} counts that thread's calls
   * from 0.
   */
  @FunctionalInterface
  public interface Call {
    void run(int thread, long index) throws Exception;
  }

  private final AtomicBoolean stop = new AtomicBoolean();
  // Striped, so that the threads' counting does not contend where the calls themselves do not.
  private final LongAdder calls = new LongAdder();
  private final LongAccumulator slowestNanos = new LongAccumulator(Math::max, 0);
  private final Queue<Throwable> escaped = new ConcurrentLinkedQueue<>();
  private final ExecutorService pool;
  private final List<Future<?>> workers = new ArrayList<>();

  private CallerThreads(int threads, Duration bound, Call call) {
    long deadline = System.nanoTime() + bound.toNanos();
    pool = Executors.newFixedThreadPool(threads);
    for (int t = 0; t < threads; t++) {
      int thread = t;
      workers.add(
          pool.submit(
              () -> {
                // The first call is made even if the bound passed before the thread ran (a busy
                // machine can start a thread late), so that a load always reaches what it loads.
                for (long i = 0; !stop.get() && (i == 0 || System.nanoTime() - deadline < 0); i++) {
                  long started = System.nanoTime();
                  try {
                    call.run(thread, i);
                  } catch (Throwable e) {
                    escaped.add(e);
                  }
                  slowestNanos.accumulate(System.nanoTime() - started);
                  calls.increment();
                }
              }));
    }
  }

  /**
   * Starts {@code threads} threads that run {@code call} over and over for at most {@link
   * #DEFAULT_BOUND}.
   *
   * @throws IllegalArgumentException as {@link #start(int, Duration, Call)}
   */
  public static CallerThreads start(int threads, Call call) {
    return start(threads, DEFAULT_BOUND, call);
  }

  /**
   * Starts {@code threads} threads that run {@code call} over and over until stopped or until
   * {@code bound} has passed; each thread makes its first call unless stopped first, even if it
   * started after the bound.
   *
   * @throws IllegalArgumentException if {@code threads} is not positive, {@code bound} is not
   *     positive or {@code call} is null
   */
  public static CallerThreads start(int threads, Duration bound, Call call) {
    if (threads <= 0) {
      throw new IllegalArgumentException("threads must be positive, was " + threads);
    }
    if (bound == null || bound.isNegative() || bound.isZero()) {
      throw new IllegalArgumentException("bound must be positive, was " + bound);
    }
    if (call == null) {
      throw new IllegalArgumentException("call must not be null");
    }
    return new CallerThreads(threads, bound, call);
  }

  /** The calls finished so far, by all threads, including those that threw. */
  public long calls() {
    return calls.sum();
  }

  /** The exceptions that calls threw, in the order they were caught. */
  public Queue<Throwable> escaped() {
    return escaped;
  }

  /** The longest call so far (or since {@link #resetSlowest()}). */
  public Duration slowest() {
    return Duration.ofNanos(slowestNanos.get());
  }

  /** Forgets the slowest call and returns it, so that a phase of the test can time its own. */
  public Duration resetSlowest() {
    return Duration.ofNanos(slowestNanos.getThenReset());
  }

  /** How many threads are still calling: fewer than started once the bound has passed. */
  public long running() {
    return workers.stream().filter(w -> !w.isDone()).count();
  }

  /**
   * Stops the threads and waits for each to finish its call, at most {@link #STOP_BOUND} each.
   * Idempotent.
   *
   * @throws IllegalStateException if a thread does not stop in time, or failed outside a call
   */
  public void stop() {
    stop(STOP_BOUND);
  }

  /** As {@link #stop()}, waiting at most {@code wait} for each thread. */
  void stop(Duration wait) {
    stop.set(true);
    try {
      for (Future<?> worker : workers) {
        worker.get(wait.toNanos(), TimeUnit.NANOSECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while stopping " + this, e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("a caller thread did not stop cleanly: " + this, e);
    } finally {
      pool.shutdownNow();
    }
  }

  @Override
  public void close() {
    stop();
  }

  /** The figures, for assertion messages: calls, threads still running, slowest, escaped. */
  @Override
  public String toString() {
    return calls()
        + " calls, "
        + running()
        + " of "
        + workers.size()
        + " threads calling, slowest "
        + slowest().toMillis()
        + " ms, "
        + escaped.size()
        + " escaped";
  }
}
