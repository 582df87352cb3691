package io.slidingwindow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RollingWindowTest {

  private static final Duration HALF_SECOND = Duration.ofMillis(500);

  private final AtomicLong clock = new AtomicLong();

  private RollingWindow window(int size, Duration interval, boolean ignoreCurrent) {
    return RollingWindow.builder()
        .size(size)
        .interval(interval)
        .ignoreCurrent(ignoreCurrent)
        .ticker(clock::get)
        .build();
  }

  private void elapse(Duration duration) {
    clock.addAndGet(duration.toNanos());
  }

  /** go-zero's TestRollingWindowAdd, with the clock moved instead of slept. */
  @Test
  void reduce_goZeroAddSchedule_matchesGoZeroSums() {
    RollingWindow r = window(3, HALF_SECOND, false);
    assertThat(r.reduce().sum()).isEqualTo(0);
    r.add(1);
    assertThat(r.reduce().sum()).isEqualTo(1);
    elapse(HALF_SECOND);
    r.add(2);
    r.add(3);
    assertThat(r.reduce().sum()).isEqualTo(6);
    elapse(HALF_SECOND);
    r.add(4);
    r.add(5);
    r.add(6);
    assertThat(r.reduce().sum()).isEqualTo(21);
    elapse(HALF_SECOND);
    r.add(7);
    assertThat(r.reduce().sum()).isEqualTo(27);
  }

  /** go-zero's TestRollingWindowReduce: after four intervals the first bucket has left. */
  @Test
  void reduce_goZeroReduceSchedule_dropsFirstBucket() {
    RollingWindow r = window(4, HALF_SECOND, false);
    for (int i = 1; i <= 4; i++) {
      r.add(i * 10L);
      elapse(HALF_SECOND);
    }
    RollingSnapshot snapshot = r.reduce();
    assertThat(snapshot.sum()).isEqualTo(90);
    assertThat(snapshot.count()).isEqualTo(3);
  }

  /** go-zero's TestRollingWindowReduce with and without IgnoreCurrentBucket: 10 and 4. */
  @Test
  void reduce_ignoreCurrent_leavesOutTheFillingBucket() {
    RollingWindow all = window(4, HALF_SECOND, false);
    RollingWindow ignoring = window(4, HALF_SECOND, true);
    for (int x = 0; x < 4; x++) {
      for (int i = 0; i <= x; i++) {
        all.add(i);
        ignoring.add(i);
      }
      if (x < 3) {
        elapse(HALF_SECOND);
      }
    }
    assertThat(all.reduce().sum()).isEqualTo(10);
    assertThat(ignoring.reduce().sum()).isEqualTo(4);
    assertThat(ignoring.reduce().length()).isEqualTo(HALF_SECOND.multipliedBy(3));
  }

  /**
   * go-zero's TestRollingWindowReset (size 3, IgnoreCurrentBucket), comparing the sum of the
   * buckets it lists after each step (1, 1, then none), and its "cross window" case. The first
   * check, that the value is left out while its own bucket fills, is this library's addition.
   */
  @Test
  void reduce_goZeroResetSchedule_valueCountsOnceItsBucketClosesUntilItLeaves() {
    RollingWindow r = window(3, HALF_SECOND, true);
    r.add(1);
    assertThat(r.reduce().isEmpty()).isTrue();
    elapse(HALF_SECOND);
    assertThat(r.reduce().sum()).isEqualTo(1);
    elapse(HALF_SECOND);
    assertThat(r.reduce().sum()).isEqualTo(1);
    elapse(HALF_SECOND);
    assertThat(r.reduce().isEmpty()).isTrue();
    r.add(1);
    elapse(HALF_SECOND.multipliedBy(10));
    assertThat(r.reduce().isEmpty()).isTrue();
  }

  @Test
  void reduce_spanBoundary_countsBucketsFromOldestStart() {
    RollingWindow r = window(3, Duration.ofNanos(100), false);
    clock.set(99);
    r.add(1); // bucket 0
    clock.set(100);
    r.add(2); // bucket 1
    clock.set(299); // buckets 0..2 covered: span [0, 299]
    assertThat(r.reduce().sum()).isEqualTo(3);
    clock.set(300); // buckets 1..3: span [100, 300]
    assertThat(r.reduce().sum()).isEqualTo(2);
    clock.set(399);
    assertThat(r.reduce().sum()).isEqualTo(2);
    clock.set(400);
    assertThat(r.reduce().isEmpty()).isTrue();
  }

  @Test
  void reduce_someValues_reportsEveryStatistic() {
    RollingWindow r = window(10, Duration.ofMillis(100), false);
    elapse(Duration.ofSeconds(1)); // a whole window after the origin: every covered bucket counts
    r.add(3.5);
    r.add(-1.5);
    elapse(Duration.ofMillis(250));
    r.add(10);
    RollingSnapshot s = r.reduce();
    assertThat(s.sum()).isEqualTo(12.0);
    assertThat(s.count()).isEqualTo(3);
    assertThat(s.min()).hasValue(-1.5);
    assertThat(s.max()).hasValue(10.0);
    assertThat(s.mean()).hasValue(4.0);
    assertThat(s.length()).isEqualTo(Duration.ofSeconds(1));
    assertThat(s.ratePerSecond()).isEqualTo(3.0);
    assertThat(s.sumPerSecond()).isEqualTo(12.0);
  }

  @Test
  void ratePerSecond_beforeAWholeWindowHasPassed_dividesByTheBucketsSinceTheOrigin() {
    RollingWindow r = window(10, Duration.ofMillis(100), false);
    r.add(1);
    r.add(2);
    elapse(Duration.ofMillis(250)); // bucket 2: buckets -7..2 are covered, 0..2 since the origin
    r.add(3);
    RollingSnapshot s = r.reduce();
    assertThat(s.length()).isEqualTo(Duration.ofMillis(300));
    assertThat(s.ratePerSecond()).isEqualTo(10.0);
    assertThat(s.sumPerSecond()).isEqualTo(20.0);
  }

  @Test
  void ratePerSecond_ignoringCurrentInTheFirstBucket_isZeroOverZeroLength() {
    RollingWindow r = window(4, Duration.ofMillis(100), true);
    r.add(1);
    RollingSnapshot first = r.reduce();
    assertThat(first.length()).isEqualTo(Duration.ZERO);
    assertThat(first.ratePerSecond()).isZero();
    assertThat(first.sumPerSecond()).isZero();
    elapse(Duration.ofMillis(100));
    RollingSnapshot second = r.reduce();
    assertThat(second.length()).isEqualTo(Duration.ofMillis(100));
    assertThat(second.ratePerSecond()).isEqualTo(10.0);
  }

  @Test
  void reduce_minusZeroAndZero_ordersThemAsMathMinAndMax() {
    RollingWindow minusFirst = window(3, Duration.ofSeconds(1), false);
    minusFirst.add(-0.0);
    minusFirst.add(0.0);
    RollingWindow plusFirst = window(3, Duration.ofSeconds(1), false);
    plusFirst.add(0.0);
    plusFirst.add(-0.0);
    for (RollingWindow r : new RollingWindow[] {minusFirst, plusFirst}) {
      RollingSnapshot s = r.reduce();
      assertThat(Double.doubleToRawLongBits(s.min().getAsDouble()))
          .as("min of %s", r)
          .isEqualTo(Double.doubleToRawLongBits(-0.0));
      assertThat(Double.doubleToRawLongBits(s.max().getAsDouble()))
          .as("max of %s", r)
          .isEqualTo(Double.doubleToRawLongBits(0.0));
    }
  }

  @Test
  void reduce_sumsBeyondTheDoubleRange_overflowToInfinityThenNaN() {
    RollingWindow r = window(3, Duration.ofSeconds(1), false);
    r.add(Double.MAX_VALUE);
    r.add(Double.MAX_VALUE);
    r.add(-Double.MAX_VALUE); // an infinite sum stays infinite within its bucket
    RollingSnapshot positive = r.reduce();
    assertThat(positive.sum()).isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(positive.mean()).hasValue(Double.POSITIVE_INFINITY);
    assertThat(positive.max()).hasValue(Double.MAX_VALUE);
    elapse(Duration.ofSeconds(1));
    r.add(-Double.MAX_VALUE);
    r.add(-Double.MAX_VALUE);
    RollingSnapshot both = r.reduce();
    assertThat(both.sum()).isNaN();
    assertThat(both.count()).isEqualTo(5);
    assertThat(both.min()).hasValue(-Double.MAX_VALUE);
    elapse(Duration.ofSeconds(2)); // the +Infinity bucket leaves
    assertThat(r.reduce().sum()).isEqualTo(Double.NEGATIVE_INFINITY);
  }

  /**
   * A value added on one stripe moves the window to its bucket for every stripe: an add on another
   * stripe whose clock reads earlier must not land in an older bucket, where a later reduce would
   * already count it as gone.
   */
  @Test
  void add_clockGoesBackOnAnotherStripe_countsAsLatestTime() throws Exception {
    long interval = 100;
    RollingWindow r =
        RollingWindow.builder()
            .size(4)
            .interval(Duration.ofNanos(interval))
            .ticker(clock::get)
            .stripes(2)
            .build();
    ExecutorService other = Executors.newSingleThreadExecutor();
    try {
      clock.set(100 * interval);
      other
          .submit(
              () -> {
                RollingWindow.useStripe(1);
                r.add(1);
              })
          .get(10, TimeUnit.SECONDS);
    } finally {
      other.shutdown();
      assertThat(other.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    clock.set(50 * interval);
    RollingWindow.useStripe(0);
    r.add(2);
    clock.set(100 * interval);
    RollingSnapshot s = r.reduce();
    assertThat(s.sum()).isEqualTo(3.0);
    assertThat(s.count()).isEqualTo(2);
    clock.set(103 * interval);
    assertThat(r.reduce().sum()).isEqualTo(3.0);
    clock.set(104 * interval);
    assertThat(r.reduce().isEmpty()).isTrue();
  }

  @Test
  void builder_stripesNotAPowerOfTwoUpTo64_throwsNamingParameter() {
    for (int bad : new int[] {0, -2, 3, 128}) {
      assertThatThrownBy(() -> RollingWindow.builder().stripes(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("stripes")
          .hasMessageContaining(Integer.toString(bad));
    }
  }

  @Test
  void reduce_empty_hasNoMinMaxOrMean() {
    RollingSnapshot s = window(5, Duration.ofMillis(100), false).reduce();
    assertThat(s.isEmpty()).isTrue();
    assertThat(s.min()).isEmpty();
    assertThat(s.max()).isEmpty();
    assertThat(s.mean()).isEmpty();
    assertThat(s.ratePerSecond()).isZero();
  }

  @Test
  void add_clockGoesBackwards_countsAsLatestTime() {
    RollingWindow r = window(2, Duration.ofSeconds(1), false);
    elapse(Duration.ofSeconds(5));
    r.add(1); // bucket 5
    clock.set(0);
    r.add(2); // counts as bucket 5, not 0
    assertThat(r.reduce().sum()).isEqualTo(3);
    clock.set(Duration.ofSeconds(7).toNanos());
    assertThat(r.reduce().sum()).isEqualTo(0);
  }

  @Test
  void add_clockBeforeOrigin_countsInFirstBucket() {
    clock.set(1_000);
    RollingWindow r = window(2, Duration.ofNanos(100), false);
    clock.set(-5_000);
    r.add(4);
    clock.set(1_000 + 199);
    assertThat(r.reduce().sum()).isEqualTo(4);
    clock.set(1_000 + 200);
    assertThat(r.reduce().sum()).isEqualTo(0);
  }

  @Test
  void add_tickerWrapsPastMaxValue_keepsBuckets() {
    clock.set(Long.MAX_VALUE - 50);
    RollingWindow r = window(2, Duration.ofNanos(100), false);
    r.add(1);
    clock.addAndGet(150); // wraps to a negative reading, 150 ns after the origin
    r.add(2);
    assertThat(r.reduce().sum()).isEqualTo(3);
    clock.addAndGet(100);
    assertThat(r.reduce().sum()).isEqualTo(2);
  }

  @Test
  void add_aLongAndADouble_bothCounted() {
    RollingWindow r = window(3, Duration.ofSeconds(1), false);
    r.add(1L << 40);
    r.add(0.25);
    assertThat(r.reduce().sum()).isEqualTo((double) (1L << 40) + 0.25);
  }

  @Test
  void add_nanOrInfinite_throwsNamingValue() {
    RollingWindow r = window(3, Duration.ofSeconds(1), false);
    assertThatThrownBy(() -> r.add(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("value")
        .hasMessageContaining("NaN");
    assertThatThrownBy(() -> r.add(Double.POSITIVE_INFINITY))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("value")
        .hasMessageContaining("Infinity");
    assertThatThrownBy(() -> r.add(Double.NEGATIVE_INFINITY))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("value");
    assertThat(r.reduce().isEmpty()).isTrue();
  }

  @Test
  void builder_badSizeOrInterval_throwsNamingParameter() {
    assertThatThrownBy(() -> RollingWindow.builder().size(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("size")
        .hasMessageContaining("0");
    assertThatThrownBy(() -> RollingWindow.builder().size(-3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("size")
        .hasMessageContaining("-3");
    assertThatThrownBy(() -> RollingWindow.builder().size(RollingWindow.MAX_SIZE + 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("size");
    assertThatThrownBy(() -> RollingWindow.builder().interval(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("interval")
        .hasMessageContaining("PT0S");
    assertThatThrownBy(() -> RollingWindow.builder().interval(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("interval");
    assertThatThrownBy(() -> RollingWindow.builder().interval(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("interval");
    assertThatThrownBy(() -> RollingWindow.builder().ticker(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ticker");
    assertThatThrownBy(
            () -> RollingWindow.builder().size(1000).interval(Duration.ofDays(365 * 300)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("interval");
    assertThatThrownBy(() -> RollingWindow.builder().size(1).ignoreCurrent(true).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("size");
  }

  /**
   * The uncontended path: one stripe, one thread, buckets rolling every 143 adds. As in the
   * contended test below, a round now and then shows a few hundred bytes from the runtime, so the
   * test asks for at least one round of 100 000 adds that allocated nothing at all.
   */
  @Test
  void add_warmWindow_allocatesNothing() {
    RollingWindow r = window(10, Duration.ofNanos(1_000), false);
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    addMany(r, 20_000);
    long[] allocated = new long[5];
    for (int i = 0; i < allocated.length; i++) {
      long before = threads.getCurrentThreadAllocatedBytes();
      addMany(r, 100_000);
      allocated[i] = threads.getCurrentThreadAllocatedBytes() - before;
    }
    assertThat(allocated).contains(0L);
  }

  /**
   * The contended path, once warm: two threads add to a window that already has its most stripes
   * (so a collision never grows it), each round starting both on stripe 0 so that their adds
   * collide, fail their lock, spin or yield, and move to other stripes. Each thread measures its
   * own allocation over rounds of 100 000 adds after its warm-up (which creates its stripe index).
   * A round now and then shows a few hundred bytes, on a single uncontended stripe too, from the
   * runtime rather than the adds; so the test asks that each thread have at least one round that
   * allocated nothing at all, where a single object per add would show as over a megabyte in every
   * round. What this leaves out is documented on {@link RollingWindow#add(double)}: a thread's
   * first add that finds a window contended or striped, and an add that grows the stripes.
   */
  @Test
  void add_warmContendedWindow_allocatesNothing() throws Exception {
    RollingWindow r =
        RollingWindow.builder()
            .size(10)
            .interval(Duration.ofNanos(1_000))
            .ticker(clock::get)
            .stripes(RollingWindow.MAX_STRIPES)
            .build();
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    int adders = 2;
    int rounds = 5;
    CyclicBarrier round = new CyclicBarrier(adders);
    ExecutorService pool = Executors.newFixedThreadPool(adders);
    try {
      List<Future<List<Long>>> results = new ArrayList<>();
      for (int t = 0; t < adders; t++) {
        results.add(
            pool.submit(
                () -> {
                  RollingWindow.useStripe(0);
                  addMany(r, 20_000);
                  List<Long> allocated = new ArrayList<>(rounds);
                  for (int i = 0; i < rounds; i++) {
                    round.await(10, TimeUnit.SECONDS);
                    RollingWindow.useStripe(0);
                    long before = threads.getCurrentThreadAllocatedBytes();
                    addMany(r, 100_000);
                    long after = threads.getCurrentThreadAllocatedBytes();
                    allocated.add(after - before);
                  }
                  return allocated;
                }));
      }
      for (Future<List<Long>> allocated : results) {
        assertThat(allocated.get(60, TimeUnit.SECONDS)).contains(0L);
      }
    } finally {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  private void addMany(RollingWindow r, int adds) {
    for (int i = 0; i < adds; i++) {
      clock.addAndGet(7);
      r.add(i);
    }
  }

  @Test
  void toString_namesSizeAndInterval() {
    assertThat(window(4, HALF_SECOND, true).toString())
        .contains("4")
        .contains("PT0.5S")
        .contains("ignoring");
  }
}
