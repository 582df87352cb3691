package io.slidingwindow;

import static org.assertj.core.api.Assertions.assertThat;

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
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * Every snapshot equals a brute-force aggregate over the documented span, computed from the full
 * list of (time, value) events, for random schedules (the clock moving forward, standing still and
 * going back) and clock origins (0, random, near {@link Long#MAX_VALUE}, negative). jqwik prints
 * the seed of a failing run.
 */
class RollingWindowPropertiesTest {

  /** One step of a schedule: move the clock by {@code advanceNanos}, then add or reduce. */
  record Step(long advanceNanos, boolean add, int value) {}

  /** What the brute force keeps of one add: the elapsed time it counts at, and its value. */
  record Event(long elapsedNanos, double value) {}

  @Property(tries = 300)
  void reduce_randomSchedule_equalsBruteForceOverDocumentedSpan(
      @ForAll("origins") long origin,
      @ForAll @IntRange(min = 1, max = 8) int size,
      @ForAll @LongRange(min = 1, max = 1_000) long intervalNanos,
      @ForAll boolean ignoreCurrent,
      @ForAll("schedules") List<Step> steps) {
    boolean ignore = ignoreCurrent && size >= 2;
    AtomicLong clock = new AtomicLong(origin);
    RollingWindow window =
        RollingWindow.builder()
            .size(size)
            .interval(Duration.ofNanos(intervalNanos))
            .ignoreCurrent(ignore)
            .ticker(clock::get)
            .build();
    List<Event> events = new ArrayList<>();
    long elapsed = 0;
    long latest = 0; // the origin's read is time 0; readings before it count as 0
    for (Step step : steps) {
      // Scale the step to the interval so that schedules cross buckets and whole windows.
      elapsed += step.advanceNanos() * intervalNanos / 64;
      clock.set(origin + elapsed); // wraps like System.nanoTime may
      latest = Math.max(latest, elapsed);
      if (step.add()) {
        window.add(step.value());
        events.add(new Event(latest, step.value()));
      } else {
        RollingSnapshot actual = window.reduce();
        long bucket = Math.floorDiv(latest, intervalNanos);
        long oldest = bucket - size + 1;
        long newest = ignore ? bucket - 1 : bucket;
        long count = 0;
        double sum = 0;
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (Event e : events) {
          // The documented span: [(b(t) - size + 1) * interval, t], or up to b(t) * interval
          // exclusive when the current bucket is ignored.
          long spanStart = oldest * intervalNanos;
          boolean inSpan =
              e.elapsedNanos() >= spanStart
                  && (ignore ? e.elapsedNanos() < bucket * intervalNanos : e.elapsedNanos() <= latest);
          long eventBucket = Math.floorDiv(e.elapsedNanos(), intervalNanos);
          assertThat(inSpan).isEqualTo(eventBucket >= oldest && eventBucket <= newest);
          if (inSpan) {
            count++;
            sum += e.value();
            min = Math.min(min, e.value());
            max = Math.max(max, e.value());
          }
        }
        assertThat(actual.count()).as("count at %d", latest).isEqualTo(count);
        assertThat(actual.sum()).as("sum at %d", latest).isEqualTo(sum);
        assertThat(actual.length()).isEqualTo(Duration.ofNanos((newest - oldest + 1) * intervalNanos));
        if (count == 0) {
          assertThat(actual.min()).isEmpty();
          assertThat(actual.max()).isEmpty();
        } else {
          assertThat(actual.min()).hasValue(min);
          assertThat(actual.max()).hasValue(max);
          assertThat(actual.mean()).hasValue(sum / count);
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
    // Mostly forward in steps up to 4 intervals (256/64), sometimes still, sometimes backwards.
    Arbitrary<Long> advance =
        Arbitraries.frequencyOf(
            Tuple.of(6, Arbitraries.longs().between(0, 256)),
            Tuple.of(2, Arbitraries.just(0L)),
            Tuple.of(1, Arbitraries.longs().between(-512, -1)),
            Tuple.of(1, Arbitraries.longs().between(256, 2_048)));
    Arbitrary<Step> step =
        Combinators.combine(advance, Arbitraries.integers().between(0, 3), Arbitraries.integers().between(-1_000, 1_000))
            .as((a, kind, value) -> new Step(a, kind != 0, value));
    return step.list().ofMinSize(1).ofMaxSize(120);
  }
}
