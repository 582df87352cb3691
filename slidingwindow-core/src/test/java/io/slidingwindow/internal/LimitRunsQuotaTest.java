package io.slidingwindow.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Limit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The quota operations of {@link LimitRuns} against a plain list of (bucket, count) runs, over a
 * ring that wraps, in the packed and the two-long layouts.
 */
class LimitRunsQuotaTest {

  /** 40 permits per 1000 ns at a precision of 10 ns: buckets of 10 ns, the ring wraps often. */
  private static final Limit LIMIT =
      Limit.of(40, Duration.ofNanos(1000)).withPrecision(Duration.ofNanos(10));

  @Test
  void removeNewestAndRemoveAt_randomOperations_matchAListOfRuns() {
    long seed = new Random().nextLong();
    Random random = new Random(seed);
    for (boolean mayPack : new boolean[] {true, false}) {
      LimitRuns runs = new LimitRuns(new LimitRuns.Config(LIMIT, false, mayPack, false), 0);
      List<long[]> reference = new ArrayList<>(); // {bucket, count}, oldest first
      long now = 0;
      for (int step = 0; step < 5_000; step++) {
        now += (long) (random.nextInt(4) == 0 ? random.nextInt(300) : random.nextInt(12));
        runs.expire(now);
        long oldest = Math.floorDiv(now - 1000 + 1, 10);
        reference.removeIf(run -> run[0] < oldest);
        int op = random.nextInt(10);
        String where = "seed " + seed + ", step " + step + ", packed " + mayPack;
        if (op < 6) {
          long permits = 1L + random.nextInt(5);
          if (runs.allows(permits)) {
            runs.record(now, permits);
            long bucket = now / 10;
            if (!reference.isEmpty() && reference.get(reference.size() - 1)[0] == bucket) {
              reference.get(reference.size() - 1)[1] += permits;
            } else {
              reference.add(new long[] {bucket, permits});
            }
          }
        } else if (op < 8) {
          long permits = 1L + random.nextInt(8);
          long expected = 0;
          for (int i = reference.size() - 1; i >= 0 && expected < permits; i--) {
            long take = Math.min(reference.get(i)[1], permits - expected);
            reference.get(i)[1] -= take;
            expected += take;
          }
          reference.removeIf(run -> run[1] == 0);
          assertThat(runs.removeNewest(permits)).as(where).isEqualTo(expected);
        } else {
          long at = Math.max(0, now - random.nextInt(1_200));
          long permits = 1L + random.nextInt(4);
          long expected = 0;
          for (long[] run : reference) {
            if (run[0] == at / 10) {
              expected = Math.min(run[1], permits);
              run[1] -= expected;
            }
          }
          reference.removeIf(run -> run[1] == 0);
          assertThat(runs.removeAt(at, permits)).as(where).isEqualTo(expected);
        }
        long sum = reference.stream().mapToLong(run -> run[1]).sum();
        assertThat(runs.count()).as(where).isEqualTo(sum);
        assertThat(runs.runCount()).as(where).isEqualTo(reference.size());
        for (int i = 0; i < reference.size(); i++) {
          long[] run = reference.get(reference.size() - 1 - i);
          assertThat(runs.runPermits(i)).as(where).isEqualTo(run[1]);
          assertThat(runs.runLatest(i, Long.MAX_VALUE)).as(where).isEqualTo(run[0] * 10 + 9);
        }
      }
    }
  }

  /**
   * Absorbing a fuller window keeps all it counts, even past the new limit, at the same times: a
   * later rise of the limit must find them.
   */
  @Test
  void absorb_moreThanTheNewLimit_keepsEveryCountedPermitAtItsLatestInstant() {
    LimitRuns old = new LimitRuns(new LimitRuns.Config(LIMIT, false), 0);
    for (long t = 0; t < 100; t += 10) {
      old.record(t, 3); // ten buckets of three
    }
    old.expire(105);
    Limit smaller = Limit.of(7, Duration.ofNanos(1000)).withPrecision(Duration.ofNanos(10));
    LimitRuns kept = new LimitRuns(new LimitRuns.Config(smaller, false, true, true), 0);
    kept.absorb(old, 105);
    assertThat(kept.count()).isEqualTo(30);
    assertThat(kept.runCount()).isEqualTo(10);
    assertThat(kept.runPermits(0)).isEqualTo(3);
    assertThat(kept.runLatest(9, 105)).as("the oldest run, at its latest instant").isEqualTo(9);
    assertThat(kept.allows(1)).isFalse();
    assertThat(kept.remaining()).isZero();
    kept.expire(1000 + 45);
    assertThat(kept.count()).as("the runs of 40 to 90 count: 18, still past 7").isEqualTo(18);
    assertThat(kept.retryAfterNanos(1045, 1))
        .as("one more fits once 12 have left: the runs of 40 to 70")
        .isEqualTo(WindowMath.leavesAt(7, 1000, 10) - 1045);
    Limit coarse = Limit.of(50, Duration.ofNanos(60)).withPrecision(Duration.ofNanos(30));
    LimitRuns seeded = new LimitRuns(new LimitRuns.Config(coarse, false, true, true), 0);
    seeded.absorb(old, 105);
    // At 105 a window of 60 at 30 ns counts buckets from floor(46 / 30) = 1, that is times from 30:
    // the runs at 30 to 90 (latest instants 39 to 99), seven runs of three.
    assertThat(seeded.count()).isEqualTo(21);
    assertThat(seeded.nextExpiry()).isEqualTo(WindowMath.leavesAt(1, 60, 30));
  }
}
