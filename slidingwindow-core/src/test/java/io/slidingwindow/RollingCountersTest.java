package io.slidingwindow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RollingCountersTest {

  private final AtomicLong clock = new AtomicLong();

  private LocalRollingCounters<String> counters(
      int size, Duration interval, int maxKeys, KeyOverflow overflow) {
    return (LocalRollingCounters<String>)
        RollingCounters.builder(size, interval)
            .ticker(clock::get)
            .maxKeys(maxKeys)
            .onKeyOverflow(overflow)
            .<String>build();
  }

  private LocalRollingCounters<String> counters(int size, Duration interval) {
    return counters(size, interval, 1_000, KeyOverflow.REFUSE);
  }

  /**
   * Rounds of 200 000 adds to tracked keys, with sums far above the boxing cache, after a warm-up:
   * at least one round must allocate nothing.
   */
  @Test
  void addAndGet_trackedKeys_allocatesNothing() {
    LocalRollingCounters<String> c = counters(10, Duration.ofMillis(1));
    String[] keys = {"a", "b", "c"};
    long[] total = new long[1];
    List<Long> allocated =
        Allocations.perRound(
            5,
            () -> {
              for (int i = 0; i < 200_000; i++) {
                total[0] += c.addAndGet(keys[i % keys.length], 1_000);
                total[0] += c.sum(keys[i % keys.length]);
                clock.addAndGet(1_000);
              }
            });
    assertThat(allocated).as("bytes allocated per round of 200 000 calls").contains(0L);
    assertThat(allocated).allMatch(bytes -> bytes < 200_000, "less than a byte per call");
    assertThat(total[0]).isPositive();
  }

  /**
   * A risk-control question: "logins from this IP in the last 10 minutes", in one-minute buckets.
   */
  @Test
  void addAndGet_loginsPerIp_returnsTheWindowsSumAfterTheAdd() {
    RollingCounters<String> logins = counters(10, Duration.ofMinutes(1));
    assertThat(logins.incrementAndGet("10.0.0.1")).isEqualTo(1);
    assertThat(logins.incrementAndGet("10.0.0.1")).isEqualTo(2);
    assertThat(logins.incrementAndGet("10.0.0.2")).isEqualTo(1);
    clock.addAndGet(Duration.ofMinutes(5).toNanos());
    assertThat(logins.addAndGet("10.0.0.1", 3)).isEqualTo(5);
    assertThat(logins.count("10.0.0.1")).isEqualTo(3);
    clock.addAndGet(Duration.ofMinutes(5).toNanos()); // minute 10: bucket 0 has left
    assertThat(logins.sum("10.0.0.1")).isEqualTo(3);
    assertThat(logins.count("10.0.0.1")).isEqualTo(1);
    assertThat(logins.sum("10.0.0.2")).isZero();
    clock.addAndGet(Duration.ofMinutes(5).toNanos());
    assertThat(logins.sum("10.0.0.1")).isZero();
  }

  @Test
  void sum_bucketEdges_coverDocumentedSpan() {
    RollingCounters<String> c = counters(3, Duration.ofNanos(100));
    clock.set(99);
    c.addAndGet("k", 1); // bucket 0
    clock.set(100);
    c.addAndGet("k", 10); // bucket 1
    clock.set(299);
    assertThat(c.sum("k")).isEqualTo(11); // buckets 0..2: [0, 299]
    clock.set(300);
    assertThat(c.sum("k")).isEqualTo(10); // buckets 1..3: [100, 300]
    clock.set(400);
    assertThat(c.sum("k")).isZero();
    assertThat(c.count("k")).isZero();
  }

  @Test
  void addAndGet_amountZero_countsTheAdd() {
    RollingCounters<String> c = counters(2, Duration.ofSeconds(1));
    assertThat(c.addAndGet("k", 0)).isZero();
    assertThat(c.count("k")).isEqualTo(1);
  }

  @Test
  void addAndGet_sumsPastMaxValue_saturateAndRecover() {
    RollingCounters<String> c = counters(2, Duration.ofNanos(100));
    c.addAndGet("k", Long.MAX_VALUE - 5);
    clock.set(100);
    assertThat(c.addAndGet("k", 10)).isEqualTo(Long.MAX_VALUE);
    assertThat(c.addAndGet("k", 10)).isEqualTo(Long.MAX_VALUE);
    clock.set(200); // the huge bucket has left
    assertThat(c.sum("k")).isEqualTo(20);
  }

  @Test
  void addAndGet_clockGoesBackwards_countsAsLatestTime() {
    RollingCounters<String> c = counters(2, Duration.ofSeconds(1));
    clock.set(Duration.ofSeconds(5).toNanos());
    c.addAndGet("k", 1);
    clock.set(0);
    assertThat(c.addAndGet("k", 2)).isEqualTo(3);
    clock.set(Duration.ofSeconds(7).toNanos());
    assertThat(c.sum("k")).isZero();
  }

  @Test
  void addAndGet_clockBeforeOrigin_countsInFirstBucket() {
    clock.set(1_000);
    RollingCounters<String> c = counters(2, Duration.ofNanos(100));
    clock.set(-50_000);
    assertThat(c.addAndGet("k", 4)).isEqualTo(4);
    clock.set(1_000 + 199);
    assertThat(c.sum("k")).isEqualTo(4);
    clock.set(1_000 + 200);
    assertThat(c.sum("k")).isZero();
  }

  @Test
  void addAndGet_tickerNearMaxValue_wrapsHarmlessly() {
    clock.set(Long.MAX_VALUE - 10);
    RollingCounters<String> c = counters(2, Duration.ofNanos(100));
    c.addAndGet("k", 1);
    clock.addAndGet(150);
    assertThat(c.addAndGet("k", 2)).isEqualTo(3);
    clock.addAndGet(100);
    assertThat(c.sum("k")).isEqualTo(2);
  }

  @Test
  void cleanUp_emptyWindows_evictsTheirKeys() {
    LocalRollingCounters<String> c = counters(3, Duration.ofSeconds(1));
    for (int i = 0; i < 50; i++) {
      c.incrementAndGet("key" + i);
    }
    assertThat(c.trackedKeys()).isEqualTo(50);
    clock.addAndGet(Duration.ofSeconds(2).toNanos());
    c.cleanUp();
    assertThat(c.trackedKeys()).isEqualTo(50); // still counted
    clock.addAndGet(Duration.ofSeconds(1).toNanos());
    c.cleanUp();
    assertThat(c.trackedKeys()).isZero();
    assertThat(c.sum("key7")).isZero();
  }

  @Test
  void keyOverflowException_maxKeys_hasTheBuildersType() throws NoSuchMethodException {
    Class<?> builderType =
        RollingCounters.Builder.class.getMethod("maxKeys", long.class).getParameterTypes()[0];
    assertThat(KeyOverflowException.class.getMethod("maxKeys").getReturnType())
        .isEqualTo(builderType);
  }

  @Test
  void addAndGet_fullTableRefusing_throwsKeyOverflowAndRecordsNothing() {
    LocalRollingCounters<String> c = counters(3, Duration.ofSeconds(1), 2, KeyOverflow.REFUSE);
    c.incrementAndGet("a");
    c.incrementAndGet("b");
    assertThatThrownBy(() -> c.addAndGet("c", 5))
        .isInstanceOf(KeyOverflowException.class)
        .hasMessageContaining("maxKeys (2)")
        .satisfies(e -> assertThat(((KeyOverflowException) e).maxKeys()).isEqualTo(2))
        .satisfies(e -> assertThat(e.getStackTrace()).isEmpty());
    assertThat(c.sum("c")).isZero();
    assertThat(c.trackedKeys()).isEqualTo(2);
    assertThat(c.incrementAndGet("a")).isEqualTo(2); // tracked keys keep counting
    clock.addAndGet(Duration.ofSeconds(3).toNanos()); // a and b empty: evicted to make room
    assertThat(c.addAndGet("c", 5)).isEqualTo(5);
    assertThat(c.trackedKeys()).isEqualTo(1);
  }

  @Test
  void addAndGet_fullTableAllowingUntracked_returnsAmountAndRecordsNothing() {
    LocalRollingCounters<String> c =
        counters(3, Duration.ofSeconds(1), 1, KeyOverflow.ALLOW_UNTRACKED);
    c.incrementAndGet("a");
    assertThat(c.addAndGet("b", 7)).isEqualTo(7);
    assertThat(c.addAndGet("b", 7)).isEqualTo(7);
    assertThat(c.count("b")).isZero();
    assertThat(c.trackedKeys()).isEqualTo(1);
  }

  @Test
  void badInput_throwsNamingParameter() {
    RollingCounters<String> c = counters(3, Duration.ofSeconds(1));
    assertThatThrownBy(() -> c.addAndGet(null, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key");
    assertThatThrownBy(() -> c.sum(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key");
    assertThatThrownBy(() -> c.count(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key");
    assertThatThrownBy(() -> c.addAndGet("k", -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("amount")
        .hasMessageContaining("-1");
    assertThatThrownBy(() -> RollingCounters.builder(0, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("size")
        .hasMessageContaining("0");
    assertThatThrownBy(() -> RollingCounters.builder(5, Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("interval")
        .hasMessageContaining("PT-1S");
    assertThatThrownBy(() -> RollingCounters.builder(5, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("interval");
    assertThatThrownBy(() -> RollingCounters.builder(5, Duration.ofSeconds(1)).maxKeys(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxKeys")
        .hasMessageContaining("0");
    assertThatThrownBy(() -> RollingCounters.builder(5, Duration.ofSeconds(1)).onKeyOverflow(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("overflow");
    assertThatThrownBy(() -> RollingCounters.builder(5, Duration.ofSeconds(1)).ticker(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ticker");
  }

  @Test
  void addAndGet_eightThreadsOnFewKeys_losesNoAdd() throws Exception {
    RollingCounters<Integer> c =
        RollingCounters.builder(16, Duration.ofNanos(1_000)).ticker(clock::get).<Integer>build();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        futures.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 20_000; i++) {
                    c.addAndGet(i % 4, 3);
                    if ((i & 63) == 0) {
                      clock.incrementAndGet(); // at most 8 * 313 ns: never past the window
                    }
                  }
                }));
      }
      for (Future<?> f : futures) {
        f.get(60, TimeUnit.SECONDS);
      }
      for (int key = 0; key < 4; key++) {
        assertThat(c.count(key)).isEqualTo(8 * 5_000);
        assertThat(c.sum(key)).isEqualTo(8 * 5_000 * 3);
      }
    } finally {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }
}
