package io.slidingwindow.benchmarks;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.PlanResolver;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.ref.Reference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * BENCHMARK HARNESS, not a test and not JMH: heap bytes per live key of the in-process {@link
 * KeyedRateLimiter}, by the difference of the used heap after garbage collection.
 *
 * <p>Builds a keyed limiter of one limit (1000 per minute, precision 60 ms) on a fake clock, then
 * gives every one of {@code keys} keys three grants at three distinct bucket times (0, 60 and 120
 * ms), so each key holds three runs and none can be evicted. The key strings exist before the first
 * reading, so the figure is the limiter's own cost per key: its table entry, the key's window state
 * and ring, without the key object. Repeated with a fresh limiter; prints each figure and the
 * median.
 *
 * <p>Usage: {@code java -XX:+UseSerialGC -Xmx1g -cp slidingwindow-benchmarks/target/benchmarks.jar
 * io.slidingwindow.benchmarks.KeyedMemory [keys=200000] [repeats=3]} (the serial collector's full
 * collection leaves no floating garbage, so the heap difference is the live data). With {@code
 * -Dplans=true} the limiter is built with a {@link PlanResolver} that leaves every key on the
 * default limits: what a key costs in a limiter whose keys may change plans.
 */
public final class KeyedMemory {

  private static final Limit LIMIT = Limit.of(1000, Duration.ofMinutes(1));
  private static final int RUNS_PER_KEY = 3;

  private KeyedMemory() {}

  public static void main(String[] args) throws InterruptedException {
    int keys = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
    int repeats = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    if (keys < 1 || repeats < 1) {
      throw new IllegalArgumentException(
          "keys and repeats must be positive, were " + keys + " and " + repeats);
    }
    List<String> ids = new ArrayList<>(keys);
    for (int i = 0; i < keys; i++) {
      ids.add("user-" + i);
    }
    try {
      System.out.printf(
          Locale.ROOT,
          "Keyed limiter%s of %s, %d keys of %d runs each; Java %s (%s), collectors %s, max heap"
              + " %d MB%n",
          Boolean.getBoolean("plans") ? " with plans" : "",
          LIMIT,
          keys,
          RUNS_PER_KEY,
          System.getProperty("java.version"),
          System.getProperty("java.vm.name"),
          ManagementFactory.getGarbageCollectorMXBeans().stream()
              .map(GarbageCollectorMXBean::getName)
              .toList(),
          Runtime.getRuntime().maxMemory() >> 20);
      double[] perKey = new double[repeats];
      for (int r = 0; r < repeats; r++) {
        perKey[r] = measure(ids);
        System.out.printf(Locale.ROOT, "repeat %d: %.1f bytes per live key%n", r + 1, perKey[r]);
      }
      Arrays.sort(perKey);
      System.out.printf(
          Locale.ROOT,
          "median: %.1f bytes per live key (min %.1f, max %.1f), key strings not counted%n",
          perKey[repeats / 2],
          perKey[0],
          perKey[repeats - 1]);
    } finally {
      Reference.reachabilityFence(ids);
    }
  }

  /** Fills a fresh limiter with every id and returns the used-heap growth per id. */
  private static double measure(List<String> ids) throws InterruptedException {
    AtomicLong nanos = new AtomicLong();
    long before = usedHeapAfterGc();
    KeyedRateLimiter.Builder builder =
        KeyedRateLimiter.builder().limit(LIMIT).ticker(nanos::get).maxKeys(ids.size());
    KeyedRateLimiter<String> limiter =
        Boolean.getBoolean("plans")
            ? builder.build((PlanResolver<String>) key -> null)
            : builder.build();
    try {
      for (int run = 0; run < RUNS_PER_KEY; run++) {
        nanos.set(run * LIMIT.precisionNanos());
        for (String id : ids) {
          if (!limiter.tryAcquire(id)) {
            throw new IllegalStateException("refused " + id + " at run " + run);
          }
        }
      }
      long after = usedHeapAfterGc();
      // Every key still counts its grants: one more at the last bucket time sees 1000 - 4 left.
      Decision probe = limiter.decide(ids.get(ids.size() / 2), 1);
      if (!probe.allowed() || probe.remaining() != LIMIT.permits() - RUNS_PER_KEY - 1) {
        throw new IllegalStateException("a key lost its runs: " + probe);
      }
      return (after - before) / (double) ids.size();
    } finally {
      Reference.reachabilityFence(limiter);
    }
  }

  /** Used heap in bytes after a few full collections, once two readings in a row agree. */
  private static long usedHeapAfterGc() throws InterruptedException {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    long last = -1;
    for (int i = 0; i < 10; i++) {
      System.gc();
      Thread.sleep(100);
      long used = memory.getHeapMemoryUsage().getUsed();
      if (i >= 2 && Math.abs(used - last) < 64 * 1024) {
        return used;
      }
      last = used;
    }
    return last;
  }
}
