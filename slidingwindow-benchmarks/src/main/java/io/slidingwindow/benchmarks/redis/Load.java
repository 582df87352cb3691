package io.slidingwindow.benchmarks.redis;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** BENCHMARK HARNESS support: the ways a contender is driven for a fixed time. */
final class Load {

  private Load() {}

  /** Requests answered, requests granted, and the nanoseconds they were counted over. */
  record Count(long requests, long granted, long nanos) {
    double perSecond() {
      return requests * 1e9 / nanos;
    }
  }

  /**
   * Runs {@code threads} threads calling {@code call} back to back for {@code seconds}; each thread
   * walks {@code ids} from its own offset.
   */
  static Count blocking(Predicate<String> call, List<String> ids, int threads, int seconds)
      throws InterruptedException {
    return drive(
        threads,
        seconds,
        false,
        30,
        (t, tally) -> {
          for (int i = offset(t, ids, threads); !tally.stop.get(); i++) {
            tally.answered(call.test(ids.get(i % ids.size())));
          }
        });
  }

  /**
   * Runs {@code threads} threads that each keep {@code inFlight} requests of {@code call} pending
   * for {@code seconds}; each thread walks {@code ids} from its own offset, so with a pool of
   * distinct ids larger than every request in flight no two pending requests share an id. Counts
   * every request answered, the last ones after the time is up too.
   */
  static Count async(
      Function<String, CompletionStage<Boolean>> call,
      List<String> ids,
      int threads,
      int inFlight,
      int seconds)
      throws InterruptedException {
    return drive(
        threads,
        seconds,
        true,
        60,
        (t, tally) -> {
          Semaphore pending = new Semaphore(inFlight);
          for (int i = offset(t, ids, threads);
              !tally.stop.get() && tally.failure.get() == null;
              i++) {
            if (!pending.tryAcquire(1, TimeUnit.SECONDS)) {
              continue;
            }
            call.apply(ids.get(i % ids.size()))
                .whenComplete(
                    (allowed, e) -> {
                      if (e != null) {
                        tally.failure.compareAndSet(null, e);
                      } else {
                        tally.answered(allowed);
                      }
                      pending.release();
                    });
          }
          if (!pending.tryAcquire(inFlight, 30, TimeUnit.SECONDS)) {
            tally.failure.compareAndSet(null, new IllegalStateException("requests still pending"));
          }
        });
  }

  /** Where thread {@code t} of {@code threads} starts walking {@code ids}. */
  private static int offset(int t, List<String> ids, int threads) {
    return t * (ids.size() / threads + 1);
  }

  /** What worker thread {@code t} does until {@code tally.stop} is set; it counts into tally. */
  private interface Worker {
    void run(int t, Tally tally) throws Exception;
  }

  /** What the workers of one run share. */
  private static final class Tally {
    final LongAdder calls = new LongAdder();
    final LongAdder granted = new LongAdder();
    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicReference<Throwable> failure = new AtomicReference<>();

    /** Counts one request answered. */
    void answered(boolean allowed) {
      if (allowed) {
        granted.increment();
      }
      calls.increment();
    }
  }

  /**
   * Runs {@code threads} daemon threads doing {@code worker} for {@code seconds}, then sets stop
   * and waits up to {@code stopSeconds} for them to finish. The time counted ends when stop is set,
   * or with {@code untilDone} when the last worker has finished (for requests still answered after
   * stop).
   */
  private static Count drive(
      int threads, int seconds, boolean untilDone, int stopSeconds, Worker worker)
      throws InterruptedException {
    Tally tally = new Tally();
    CountDownLatch done = new CountDownLatch(threads);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      Thread w =
          new Thread(
              () -> {
                try {
                  worker.run(thread, tally);
                } catch (Throwable e) {
                  tally.failure.compareAndSet(null, e);
                } finally {
                  done.countDown();
                }
              });
      w.setDaemon(true);
      workers.add(w);
    }
    long start = System.nanoTime();
    workers.forEach(Thread::start);
    TimeUnit.SECONDS.sleep(seconds);
    tally.stop.set(true);
    long nanos = System.nanoTime() - start;
    if (!done.await(stopSeconds, TimeUnit.SECONDS)) {
      throw new IllegalStateException("workers did not stop within " + stopSeconds + " s");
    }
    if (untilDone) {
      nanos = System.nanoTime() - start;
    }
    rethrow(tally.failure.get());
    return new Count(tally.calls.sum(), tally.granted.sum(), nanos);
  }

  /**
   * Runs {@code redis-benchmark -c connections} on EVALSHA of {@code sha} with no keys, about
   * {@code seconds} long at 40 000 requests per second; the count is the requests it sent and their
   * time is the rate it reported.
   */
  static Count redisBenchmark(int port, int connections, String sha, int seconds) throws Exception {
    int requests = 40_000 * seconds;
    Process process =
        new ProcessBuilder(
                "redis-benchmark",
                "-h",
                "127.0.0.1",
                "-p",
                Integer.toString(port),
                "-c",
                Integer.toString(connections),
                "-n",
                Integer.toString(requests),
                "-q",
                "EVALSHA",
                sha,
                "0")
            .redirectErrorStream(true)
            .start();
    StringBuilder output = new StringBuilder();
    try (BufferedReader reader =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = reader.readLine()) != null) {
        output.append(line).append('\n');
      }
    }
    if (!process.waitFor(120, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException("redis-benchmark did not finish within 120 s");
    }
    Matcher m = Pattern.compile("([0-9.]+) requests per second").matcher(output);
    double rate = Double.NaN;
    while (m.find()) {
      rate = Double.parseDouble(m.group(1));
    }
    if (Double.isNaN(rate)) {
      throw new IllegalStateException("redis-benchmark printed no rate: " + output);
    }
    return new Count(requests, requests, (long) (requests * 1e9 / rate));
  }

  private static void rethrow(Throwable failure) {
    if (failure instanceof RuntimeException e) {
      throw e;
    }
    if (failure instanceof Error e) {
      throw e;
    }
    if (failure != null) {
      throw new IllegalStateException(failure);
    }
  }
}
