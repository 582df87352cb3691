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
    LongAdder calls = new LongAdder();
    LongAdder granted = new LongAdder();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch done = new CountDownLatch(threads);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int offset = t * (ids.size() / threads + 1);
      Thread worker =
          new Thread(
              () -> {
                try {
                  for (int i = offset; !stop.get(); i++) {
                    if (call.test(ids.get(i % ids.size()))) {
                      granted.increment();
                    }
                    calls.increment();
                  }
                } catch (Throwable e) {
                  failure.compareAndSet(null, e);
                } finally {
                  done.countDown();
                }
              });
      worker.setDaemon(true);
      workers.add(worker);
    }
    long start = System.nanoTime();
    workers.forEach(Thread::start);
    TimeUnit.SECONDS.sleep(seconds);
    stop.set(true);
    long nanos = System.nanoTime() - start;
    if (!done.await(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("workers did not stop within 30 s");
    }
    rethrow(failure.get());
    return new Count(calls.sum(), granted.sum(), nanos);
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
    LongAdder calls = new LongAdder();
    LongAdder granted = new LongAdder();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch done = new CountDownLatch(threads);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int offset = t * (ids.size() / threads + 1);
      Semaphore pending = new Semaphore(inFlight);
      Thread worker =
          new Thread(
              () -> {
                try {
                  for (int i = offset; !stop.get() && failure.get() == null; i++) {
                    if (!pending.tryAcquire(1, TimeUnit.SECONDS)) {
                      continue;
                    }
                    call.apply(ids.get(i % ids.size()))
                        .whenComplete(
                            (allowed, e) -> {
                              if (e != null) {
                                failure.compareAndSet(null, e);
                              } else if (allowed) {
                                granted.increment();
                              }
                              calls.increment();
                              pending.release();
                            });
                  }
                  if (!pending.tryAcquire(inFlight, 30, TimeUnit.SECONDS)) {
                    failure.compareAndSet(
                        null, new IllegalStateException("requests still pending"));
                  }
                } catch (Throwable e) {
                  failure.compareAndSet(null, e);
                } finally {
                  done.countDown();
                }
              });
      worker.setDaemon(true);
      workers.add(worker);
    }
    long start = System.nanoTime();
    workers.forEach(Thread::start);
    TimeUnit.SECONDS.sleep(seconds);
    stop.set(true);
    if (!done.await(60, TimeUnit.SECONDS)) {
      throw new IllegalStateException("async workers did not stop within 60 s");
    }
    long nanos = System.nanoTime() - start;
    rethrow(failure.get());
    return new Count(calls.sum(), granted.sum(), nanos);
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
