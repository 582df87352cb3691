package io.slidingwindow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * Every sum and count equals a brute-force aggregate over the documented span, for random schedules
 * over a few keys (with evictions along the way, and a table small enough to overflow) and clock
 * origins (0, random, near {@link Long#MAX_VALUE}, negative). jqwik prints the seed of a failing
 * run.
 */
class RollingCountersPropertiesTest {

  /** Move the clock forward by {@code advance} (scaled), then act on {@code key}. */
  record Step(long advance, int action, int key, long amount) {}

  record Event(int key, long elapsedNanos, long amount) {}

  @Property(tries = 300)
  void sumAndCount_randomSchedule_equalBruteForce(
      @ForAll("origins") long origin,
      @ForAll @IntRange(min = 1, max = 8) int size,
      @ForAll @LongRange(min = 1, max = 1_000) long intervalNanos,
      @ForAll @IntRange(min = 1, max = 5) int maxKeys,
      @ForAll boolean refuse,
      @ForAll("schedules") List<Step> steps) {
    AtomicLong clock = new AtomicLong(origin);
    KeyOverflow overflow = refuse ? KeyOverflow.REFUSE : KeyOverflow.ALLOW_UNTRACKED;
    LocalRollingCounters<Integer> counters =
        (LocalRollingCounters<Integer>)
            RollingCounters.builder(size, Duration.ofNanos(intervalNanos))
                .ticker(clock::get)
                .maxKeys(maxKeys)
                .onKeyOverflow(overflow)
                .<Integer>build();
    List<Event> events = new ArrayList<>();
    long elapsed = 0;
    for (Step step : steps) {
      elapsed += step.advance() * intervalNanos / 64;
      clock.set(origin + elapsed);
      long bucket = Math.floorDiv(elapsed, intervalNanos);
      long spanStart = (bucket - size + 1) * intervalNanos;
      long sum = 0;
      long count = 0;
      boolean[] live = new boolean[6];
      for (Event e : events) {
        if (e.elapsedNanos() >= spanStart && e.elapsedNanos() <= elapsed) {
          live[e.key()] = true;
          if (e.key() == step.key()) {
            sum += e.amount();
            count++;
          }
        }
      }
      int liveKeys = 0;
      for (boolean l : live) {
        liveKeys += l ? 1 : 0;
      }
      switch (step.action()) {
        case 0 -> {
          if (live[step.key()] || liveKeys < maxKeys) {
            // Tracked already, or room can be made by evicting keys whose windows are empty.
            assertThat(counters.addAndGet(step.key(), step.amount()))
                .isEqualTo(sum + step.amount());
            events.add(new Event(step.key(), elapsed, step.amount()));
          } else if (refuse) {
            assertThatThrownBy(() -> counters.addAndGet(step.key(), step.amount()))
                .isInstanceOf(KeyOverflowException.class);
          } else {
            assertThat(counters.addAndGet(step.key(), step.amount())).isEqualTo(step.amount());
          }
        }
        case 1 -> assertThat(counters.sum(step.key())).isEqualTo(sum);
        case 2 -> assertThat(counters.count(step.key())).isEqualTo(count);
        default -> {
          counters.cleanUp();
          assertThat(counters.trackedKeys()).isEqualTo(liveKeys);
        }
      }
    }
  }

  @Provide
  Arbitrary<Long> origins() {
    return Arbitraries.oneOf(
        Arbitraries.just(0L),
        Arbitraries.longs(),
        Arbitraries.longs().between(Long.MAX_VALUE - 100_000, Long.MAX_VALUE),
        Arbitraries.longs().between(Long.MIN_VALUE, -1));
  }

  @Provide
  Arbitrary<List<Step>> schedules() {
    Arbitrary<Long> advance =
        Arbitraries.oneOf(
            Arbitraries.longs().between(0, 128),
            Arbitraries.just(0L),
            Arbitraries.longs().between(128, 1_024));
    Arbitrary<Integer> action =
        Arbitraries.frequency(
            net.jqwik.api.Tuple.of(6, 0),
            net.jqwik.api.Tuple.of(2, 1),
            net.jqwik.api.Tuple.of(2, 2),
            net.jqwik.api.Tuple.of(1, 3));
    return Combinators.combine(
            advance,
            action,
            Arbitraries.integers().between(0, 5),
            Arbitraries.longs().between(0, 1_000))
        .as(Step::new)
        .list()
        .ofMinSize(1)
        .ofMaxSize(120);
  }
}
