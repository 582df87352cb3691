package io.slidingwindow.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Decision;
import io.slidingwindow.Limit;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LimitRunsTest {

  /** 20 permits per 1000 ns at a precision of 70 ns: at most 16 runs, packed in one long each. */
  private static final Limit SMALL =
      Limit.of(20, Duration.ofNanos(1000)).withPrecision(Duration.ofNanos(70));

  @Test
  void config_permitsWithinPrecisionNanos_packsRunsElseTakesTwoLongs() {
    assertThat(new LimitRuns.Config(Limit.of(1000, Duration.ofMinutes(1)), false).packed())
        .isTrue();
    assertThat(new LimitRuns.Config(SMALL, true).packed()).isTrue();
    Limit nanoPrecise = Limit.of(1000, Duration.ofSeconds(1)).withPrecision(Duration.ofNanos(1));
    assertThat(new LimitRuns.Config(nanoPrecise, false).packed()).isFalse();
    // Every permits value up to the precision in nanoseconds packs, at the edge of the ranges.
    for (long precision : new long[] {1, 2, 3, 1000, 60_000_000, (1L << 40) + 1}) {
      Duration nanos = Duration.ofNanos(precision);
      Limit edge = Limit.of(precision, nanos).withPrecision(nanos);
      assertThat(new LimitRuns.Config(edge, false).packed()).as("precision %d", precision).isTrue();
    }
  }

  @Test
  void ring_firstRunThenMore_allocatesLazilyAndDoublesUpToTheBound() {
    LimitRuns runs = new LimitRuns(new LimitRuns.Config(SMALL, false), 0);
    assertThat(runs.ringCapacity()).isZero();
    assertThat(runs.tryAcquire(0, 1)).isTrue();
    assertThat(runs.ringCapacity()).isEqualTo(2);
    for (long t = 70; t < 1000; t += 70) {
      assertThat(runs.tryAcquire(t, 1)).isTrue();
    }
    assertThat(runs.runCount()).isEqualTo(15);
    assertThat(runs.ringCapacity()).isEqualTo(16).isEqualTo(runs.maxRuns());
  }

  /**
   * The packed and the two-long layouts decide alike, and without counted refusals both grant
   * exactly what a plain list of every grant allows, from origins 0 and near the largest time.
   */
  @Test
  void decide_randomRequests_packedAndWideAgreeWithReference() {
    long seed = new Random().nextLong();
    Random random = new Random(seed);
    for (long start : new long[] {0, Long.MAX_VALUE - 50_000}) {
      for (boolean countRefused : new boolean[] {false, true}) {
        Layouts states = new Layouts(countRefused, start);
        Deque<long[]> grants = new ArrayDeque<>(); // {time, permits}, for the reference
        long now = start;
        for (int i = 0; i < 20_000; i++) {
          now += random.nextInt(8) == 0 ? -random.nextInt(100) : random.nextInt(120);
          now = Math.max(now, start);
          long permits = 1L + random.nextInt(5);
          Decision packed = states.packed.decide(now, permits);
          Decision wide = states.wide.decide(now, permits);
          String where = String.format("seed %d, start %d, step %d", seed, start, i);
          assertThat(packed).as(where).isEqualTo(wide);
          assertThat(states.packed.storedRuns()).as(where).isEqualTo(states.wide.storedRuns());
          assertThat(states.packed.storedRuns()[0]).as(where).isLessThanOrEqualTo(16);
          if (!countRefused) {
            long t = states.packed.latest();
            long oldest = WindowMath.oldestBucket(t, 1000, 70);
            grants.removeIf(g -> WindowMath.bucket(g[0], 70) < oldest);
            long counted = grants.stream().mapToLong(g -> g[1]).sum();
            assertThat(packed.allowed()).as(where).isEqualTo(counted + permits <= 20);
            if (packed.allowed()) {
              grants.add(new long[] {t, permits});
            }
          }
        }
      }
    }
  }

  /** The same limit's state in both layouts. */
  private static final class Layouts {
    final LimitRuns packed;
    final LimitRuns wide;

    Layouts(boolean countRefused, long start) {
      packed = new LimitRuns(new LimitRuns.Config(SMALL, countRefused, true, false), start);
      wide = new LimitRuns(new LimitRuns.Config(SMALL, countRefused, false, false), start);
      assertThat(List.of(packed.runCount(), wide.runCount())).containsOnly(0);
    }
  }
}
