package io.slidingwindow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import java.time.Duration;
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

  /** go-zero's TestRollingWindowAdd as seed 004 gives it, with the clock moved instead of slept. */
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

  /** Seed 004's TestRollingWindowReduce: after four intervals the first bucket has left. */
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

  /** go-zero's TestRollingWindowReduce second case: ignoring the current bucket after time moved. */
  @Test
  void reduce_ignoreCurrentAfterTimeMoved_countsTheBucketThatClosed() {
    RollingWindow r = window(4, HALF_SECOND, true);
    r.add(5);
    assertThat(r.reduce().sum()).isEqualTo(0);
    elapse(HALF_SECOND);
    assertThat(r.reduce().sum()).isEqualTo(5);
    elapse(HALF_SECOND.multipliedBy(3));
    assertThat(r.reduce().sum()).isEqualTo(0);
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

  @Test
  void add_warmWindow_allocatesNothing() {
    RollingWindow r = window(10, Duration.ofNanos(1_000), false);
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    for (int i = 0; i < 20_000; i++) {
      clock.addAndGet(7);
      r.add(i);
    }
    long before = threads.getCurrentThreadAllocatedBytes();
    for (int i = 0; i < 100_000; i++) {
      clock.addAndGet(7);
      r.add(i);
    }
    long allocated = threads.getCurrentThreadAllocatedBytes() - before;
    assertThat(allocated).isZero();
  }

  @Test
  void toString_namesSizeAndInterval() {
    assertThat(window(4, HALF_SECOND, true).toString())
        .contains("4")
        .contains("PT0.5S")
        .contains("ignoring");
  }
}
