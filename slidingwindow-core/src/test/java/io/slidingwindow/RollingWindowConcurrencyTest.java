package io.slidingwindow;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Eight threads add while two others reduce; the clock moves across buckets (but never past the
 * window) while they run, and stops when they are done. No add may be lost, counted twice or torn:
 * every snapshot taken while they run includes every add that completed before it began, and the
 * final snapshot holds exactly what was added.
 */
class RollingWindowConcurrencyTest {

  private static final int ADDERS = 8;
  private static final int REDUCERS = 2;
  private static final int ADDS_PER_THREAD = 50_000;

  @Test
  void add_eightThreadsWhileOthersReduce_losesNoAdd() throws Exception {
    AtomicLong clock = new AtomicLong(Long.MAX_VALUE - 1_000_000); // wraps while the test runs
    // 64 buckets of 1 µs; the adders move the clock at most 8 * 50_000 / 16 ns = 25 µs in all.
    RollingWindow window =
        RollingWindow.builder()
            .size(64)
            .interval(Duration.ofNanos(1_000))
            .ticker(clock::get)
            .build();
    ExecutorService pool = Executors.newFixedThreadPool(ADDERS + REDUCERS);
    try {
      CountDownLatch start = new CountDownLatch(1);
      // The adders wait for every reducer to be running, so that they really overlap.
      CountDownLatch reducing = new CountDownLatch(REDUCERS);
      AtomicBoolean adding = new AtomicBoolean(true);
      // What each adder has completed, published after each add (a volatile write, so a reducer
      // that reads it sees the add as completed before its reduce begins).
      AtomicLong[] completedCount = new AtomicLong[ADDERS];
      AtomicLong[] completedSum = new AtomicLong[ADDERS];
      for (int t = 0; t < ADDERS; t++) {
        completedCount[t] = new AtomicLong();
        completedSum[t] = new AtomicLong();
      }
      List<Future<Long>> adders = new ArrayList<>();
      for (int t = 0; t < ADDERS; t++) {
        int thread = t;
        Callable<Long> adder =
            () -> {
              start.await();
              reducing.await();
              long total = 0;
              for (int i = 0; i < ADDS_PER_THREAD; i++) {
                long value = thread * 1_000L + (i % 997);
                window.add(value);
                total += value;
                completedSum[thread].set(total);
                completedCount[thread].set(i + 1);
                if ((i & 15) == 0) {
                  clock.incrementAndGet();
                }
              }
              return total;
            };
        adders.add(pool.submit(adder));
      }
      List<Future<Long>> reducers = new ArrayList<>();
      for (int t = 0; t < REDUCERS; t++) {
        Callable<Long> reducer =
            () -> {
              start.await();
              long reduces = 0;
              long lastCount = 0;
              do {
                long doneCount = 0;
                long doneSum = 0;
                for (int a = 0; a < ADDERS; a++) {
                  doneSum += completedSum[a].get();
                  doneCount += completedCount[a].get();
                }
                RollingSnapshot s = window.reduce();
                // Nothing leaves the window during the test, so every completed add is covered
                // (values are non-negative, so the sum bounds the completed sum too), and the
                // count only grows.
                assertThat(s.count())
                    .as("count after %d completed adds", doneCount)
                    .isGreaterThanOrEqualTo(doneCount);
                assertThat(s.sum())
                    .as("sum after adds summing to %d", doneSum)
                    .isGreaterThanOrEqualTo((double) doneSum);
                assertThat(s.count()).isGreaterThanOrEqualTo(lastCount);
                lastCount = s.count();
                if (reduces++ == 0) {
                  reducing.countDown();
                }
              } while (adding.get() && reduces < 10_000_000);
              return reduces;
            };
        reducers.add(pool.submit(reducer));
      }
      start.countDown();
      long expectedSum = 0;
      for (Future<Long> adder : adders) {
        expectedSum += adder.get(60, TimeUnit.SECONDS);
      }
      adding.set(false);
      for (Future<Long> reducer : reducers) {
        assertThat(reducer.get(60, TimeUnit.SECONDS)).isPositive();
      }
      RollingSnapshot last = window.reduce();
      assertThat(last.count()).isEqualTo((long) ADDERS * ADDS_PER_THREAD);
      assertThat(last.sum()).isEqualTo((double) expectedSum);
      assertThat(last.min()).hasValue(0.0);
      assertThat(last.max()).hasValue((ADDERS - 1) * 1_000.0 + 996);
    } finally {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void reduce_afterConcurrentAddsAndWindowPassed_isEmpty() throws Exception {
    AtomicLong clock = new AtomicLong();
    RollingWindow window =
        RollingWindow.builder().size(4).interval(Duration.ofNanos(100)).ticker(clock::get).build();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        futures.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 20_000; i++) {
                    window.add(1);
                  }
                }));
      }
      for (Future<?> f : futures) {
        f.get(60, TimeUnit.SECONDS);
      }
      assertThat(window.reduce().count()).isEqualTo(80_000);
      clock.addAndGet(400);
      assertThat(window.reduce().isEmpty()).isTrue();
      window.add(5);
      assertThat(window.reduce().sum()).isEqualTo(5);
    } finally {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  /**
   * Every add is of 1, so in any snapshot taken while adds run and buckets roll (and leave), the
   * sum equals the count: a reduce that saw an add's count without its value, or a bucket half
   * reset, would break that.
   */
  @Test
  void reduce_whileAddsRollBuckets_neverSeesAHalfMadeAdd() throws Exception {
    AtomicLong clock = new AtomicLong(-3_000);
    RollingWindow window =
        RollingWindow.builder().size(4).interval(Duration.ofNanos(50)).ticker(clock::get).build();
    ExecutorService pool = Executors.newFixedThreadPool(ADDERS + REDUCERS);
    try {
      AtomicBoolean adding = new AtomicBoolean(true);
      CountDownLatch reducing = new CountDownLatch(REDUCERS);
      List<Future<?>> adders = new ArrayList<>();
      for (int t = 0; t < ADDERS; t++) {
        adders.add(
            pool.submit(
                () -> {
                  reducing.await();
                  for (int i = 0; i < 20_000; i++) {
                    window.add(1);
                    if ((i & 7) == 0) {
                      clock.incrementAndGet(); // buckets roll and leave all the time
                    }
                  }
                  return null;
                }));
      }
      List<Future<Long>> reducers = new ArrayList<>();
      for (int t = 0; t < REDUCERS; t++) {
        reducers.add(
            pool.submit(
                () -> {
                  long reduces = 0;
                  do {
                    RollingSnapshot s = window.reduce();
                    assertThat(s.sum()).isEqualTo((double) s.count());
                    if (!s.isEmpty()) {
                      assertThat(s.min()).hasValue(1.0);
                      assertThat(s.max()).hasValue(1.0);
                    }
                    if (reduces++ == 0) {
                      reducing.countDown();
                    }
                  } while (adding.get() && reduces < 10_000_000);
                  return reduces;
                }));
      }
      for (Future<?> adder : adders) {
        adder.get(60, TimeUnit.SECONDS);
      }
      adding.set(false);
      for (Future<Long> reducer : reducers) {
        assertThat(reducer.get(60, TimeUnit.SECONDS)).isPositive();
      }
    } finally {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }
}
