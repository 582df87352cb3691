package io.slidingwindow.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.RollingCounters;
import io.slidingwindow.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/**
 * What every {@link RollingCounters} implementation must do, through the interface alone: a
 * backend's test extends this class and says how to build counters on a given clock, so that the
 * in-process and the Redis counters face the same schedules and the same brute-force model.
 *
 * <p>The property draws a seed (jqwik prints it for a failing run; the run replays from it) and
 * from it a window, a clock origin (0, near {@link Long#MAX_VALUE}, or anywhere) and a schedule of
 * adds, sums and counts over a few keys, with clean-ups among them. Every time is driven by a
 * {@link FakeTicker}; nothing sleeps.
 */
public abstract class RollingCountersConformance {

  private static final AtomicLong KEYS = new AtomicLong();

  /**
   * Builds counters whose windows are {@code size} buckets of width {@code interval} and whose
   * clock is {@code ticker}, read first when they are built (their origin). Each call must give
   * counters whose keys share no state with earlier ones, or the kit's keys must be enough to
   * isolate them (every scenario uses keys it has never used before).
   */
  protected abstract RollingCounters<String> newCounters(
      int size, Duration interval, Ticker ticker);

  /** What every interval the kit asks for is a whole multiple of: 1 ns unless overridden. */
  protected long intervalUnitNanos() {
    return 1;
  }

  /** A key no scenario has used. */
  protected static String freshKey() {
    return "counters-" + KEYS.incrementAndGet();
  }

  private Duration interval(long units) {
    return Duration.ofNanos(units * intervalUnitNanos());
  }

  /** The brute-force model: every add with its time; sums and counts by scanning them all. */
  private static final class Model {
    final int size;
    final long intervalNanos;
    final List<long[]> events = new ArrayList<>();

    Model(int size, long intervalNanos) {
      this.size = size;
      this.intervalNanos = intervalNanos;
    }

    /** {sum, count} of {@code key} at time {@code t}. */
    long[] at(int key, long t) {
      long newest = Math.floorDiv(t, intervalNanos);
      long oldest = newest - size + 1;
      long sum = 0;
      long count = 0;
      for (long[] e : events) {
        long bucket = Math.floorDiv(e[1], intervalNanos);
        if (e[0] == key && bucket >= oldest && bucket <= newest) {
          sum += e[2];
          count++;
        }
      }
      return new long[] {sum, count};
    }
  }

  /**
   * Random schedules whose clock moves forward only (a step back is {@link
   * #clockGoingBackwards_countsAsTheLatestReading}: how far later readings then count depends on
   * the implementation, since the in-process counters also move a key's clock on at {@link
   * RollingCounters#cleanUp} and when they sweep keys for eviction).
   */
  @Property(tries = 40)
  void sumsAndCounts_randomSchedules_equalTheBruteForceModel(@ForAll long seed) {
    Random random = new Random(seed);
    int size = 1 + random.nextInt(12);
    long intervalNanos = interval(1 + random.nextInt(5_000)).toNanos();
    long origin =
        switch (random.nextInt(3)) {
          case 0 -> 0;
          case 1 -> Long.MAX_VALUE - random.nextInt(1_000_000_000);
          default -> random.nextLong();
        };
    FakeTicker ticker = new FakeTicker(origin);
    RollingCounters<String> counters = newCounters(size, Duration.ofNanos(intervalNanos), ticker);
    String[] keys = {freshKey(), freshKey(), freshKey()};
    Model model = new Model(size, intervalNanos);
    long t = 0;
    for (int op = 0; op < 150; op++) {
      int key = random.nextInt(keys.length);
      String where =
          String.format(
              "seed %d, op %d, size %d, interval %d ns, origin %d, t=%d, key %d",
              seed, op, size, intervalNanos, origin, t, key);
      switch (random.nextInt(5)) {
        case 0, 1 -> {
          long amount = random.nextInt(4) == 0 ? random.nextInt(2) : random.nextInt(1_000);
          model.events.add(new long[] {key, t, amount});
          long expected = model.at(key, t)[0];
          long got =
              amount == 1 && random.nextBoolean()
                  ? counters.incrementAndGet(keys[key])
                  : counters.addAndGet(keys[key], amount);
          assertThat(got).as("addAndGet, " + where).isEqualTo(expected);
        }
        case 2 ->
            assertThat(counters.sum(keys[key])).as("sum, " + where).isEqualTo(model.at(key, t)[0]);
        case 3 ->
            assertThat(counters.count(keys[key]))
                .as("count, " + where)
                .isEqualTo(model.at(key, t)[1]);
        default -> counters.cleanUp();
      }
      long step =
          random.nextInt(5) == 0
              ? intervalNanos * random.nextInt(2 * size + 2)
              : random.nextLong(intervalNanos + 1);
      ticker.advance(step);
      t += step;
    }
  }

  @Test
  void sizeIntervalAndCleanUp_asBuilt_cleanUpChangesNoSum() {
    FakeTicker ticker = new FakeTicker();
    RollingCounters<String> counters = newCounters(7, interval(3_000), ticker);
    assertThat(counters.size()).isEqualTo(7);
    assertThat(counters.interval()).isEqualTo(interval(3_000));
    String key = freshKey();
    assertThat(counters.addAndGet(key, 5)).isEqualTo(5);
    assertThat(counters.incrementAndGet(key)).isEqualTo(6);
    counters.cleanUp();
    assertThat(counters.sum(key)).isEqualTo(6);
    assertThat(counters.count(key)).isEqualTo(2);
    assertThat(counters.sum(freshKey())).isZero();
    assertThat(counters.count(freshKey())).isZero();
  }

  @Test
  void badArguments_throwIllegalArgumentException_andRecordNothing() {
    RollingCounters<String> counters = newCounters(4, interval(1_000), new FakeTicker());
    String key = freshKey();
    assertThatThrownBy(() -> counters.addAndGet(null, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> counters.incrementAndGet(null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> counters.sum(null)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> counters.count(null)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> counters.addAndGet(key, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("amount");
    assertThatThrownBy(() -> counters.addAndGet(key, Long.MIN_VALUE))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(counters.count(key)).isZero();
    assertThat(counters.addAndGet(key, 0)).isZero();
    assertThat(counters.count(key)).isEqualTo(1);
  }

  @Test
  void sums_saturateAtLongMaxValue_andAreExactAgainOnceTheSaturatingBucketsLeave() {
    FakeTicker ticker = new FakeTicker();
    long interval = interval(1_000).toNanos();
    RollingCounters<String> counters = newCounters(3, Duration.ofNanos(interval), ticker);
    String key = freshKey();
    assertThat(counters.addAndGet(key, Long.MAX_VALUE - 1)).isEqualTo(Long.MAX_VALUE - 1);
    assertThat(counters.addAndGet(key, 5)).isEqualTo(Long.MAX_VALUE);
    assertThat(counters.count(key)).isEqualTo(2);
    ticker.advance(interval);
    assertThat(counters.addAndGet(key, 7)).isEqualTo(Long.MAX_VALUE);
    ticker.advance(2 * interval); // buckets 1 .. 3: the saturated bucket 0 has left
    assertThat(counters.sum(key)).isEqualTo(7);
    assertThat(counters.addAndGet(key, Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
    assertThat(counters.addAndGet(key, Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
    ticker.advance(2 * interval); // buckets 3 .. 5: bucket 3 holds a saturated sum alone
    assertThat(counters.sum(key)).isEqualTo(Long.MAX_VALUE);
    assertThat(counters.count(key)).isEqualTo(2);

    String halves = freshKey();
    long half = Long.MAX_VALUE / 2 + 1;
    assertThat(counters.addAndGet(halves, half)).isEqualTo(half);
    ticker.advance(interval);
    assertThat(counters.addAndGet(halves, half)).isEqualTo(Long.MAX_VALUE);
    ticker.advance(2 * interval);
    assertThat(counters.sum(halves)).isEqualTo(half);
  }

  @Test
  void sumsBeyondTwoToThe53_areExact() {
    FakeTicker ticker = new FakeTicker();
    long interval = interval(1_000).toNanos();
    RollingCounters<String> counters = newCounters(4, Duration.ofNanos(interval), ticker);
    String key = freshKey();
    long big = (1L << 53) + 1;
    assertThat(counters.addAndGet(key, big)).isEqualTo(big);
    ticker.advance(interval);
    assertThat(counters.addAndGet(key, 1)).isEqualTo(big + 1);
    assertThat(counters.addAndGet(key, 999_999_999_999L)).isEqualTo(big + 1_000_000_000_000L);
    ticker.advance(interval);
    assertThat(counters.addAndGet(key, 123_456_789_012_345_678L))
        .isEqualTo(big + 1_000_000_000_000L + 123_456_789_012_345_678L);
  }

  @Test
  void clockGoingBackwards_countsAsTheLatestReading() {
    FakeTicker ticker = new FakeTicker(1_000);
    long interval = interval(1_000).toNanos();
    RollingCounters<String> counters = newCounters(2, Duration.ofNanos(interval), ticker);
    String key = freshKey();
    ticker.advance(5 * interval);
    assertThat(counters.addAndGet(key, 1)).isEqualTo(1);
    ticker.advance(-5 * interval); // bucket 0 again: counts as bucket 5
    assertThat(counters.addAndGet(key, 2)).isEqualTo(3);
    assertThat(counters.sum(key)).isEqualTo(3);
    ticker.advance(6 * interval); // bucket 6: buckets 5 .. 6 still hold both adds
    assertThat(counters.sum(key)).isEqualTo(3);
    ticker.advance(interval); // bucket 7: both have left
    assertThat(counters.sum(key)).isZero();
    assertThat(counters.count(key)).isZero();
  }
}
