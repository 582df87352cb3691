package io.slidingwindow;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
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
 * going back) and clock origins (0, random, near {@link Long#MAX_VALUE}, negative): from one thread
 * on one stripe, and from several threads pinned to different stripes of a striped window, each
 * step joined before the next so that the order of the steps, and so the brute force, is exact.
 * jqwik prints the seed of a failing run.
 */
class RollingWindowPropertiesTest {

  /** Threads taking turns in the striped property; thread {@code i} uses stripe {@code i}. */
  private static final int THREADS = 3;

  /**
   * One step of a schedule: move the clock by {@code advanceNanos}, then, on thread {@code thread}
   * (in the striped property), add {@code value} or reduce.
   */
  record Step(long advanceNanos, boolean add, double value, int thread) {}

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
    BruteForce model = new BruteForce(size, intervalNanos, ignore);
    long elapsed = 0;
    for (Step step : steps) {
      // Scale the step to the interval so that schedules cross buckets and whole windows.
      elapsed += step.advanceNanos() * intervalNanos / 64;
      clock.set(origin + elapsed); // wraps like System.nanoTime may
      model.read(elapsed);
      if (step.add()) {
        window.add(step.value());
        model.add(step.value());
      } else {
        model.check(window.reduce());
      }
    }
  }

  /**
   * The same schedules run by {@value #THREADS} threads taking turns on a window of 2 or 4 stripes,
   * each thread on its own stripe (thread 2 shares stripe 0 when there are 2): a clock read behind
   * the latest one, on a stripe that has not seen that latest time, must still count at it.
   */
  @Property(tries = 150)
  void reduce_stepsFromThreadsOnSeveralStripes_equalsBruteForceOverDocumentedSpan(
      @ForAll("origins") long origin,
      @ForAll @IntRange(min = 1, max = 8) int size,
      @ForAll @LongRange(min = 1, max = 1_000) long intervalNanos,
      @ForAll boolean ignoreCurrent,
      @ForAll("stripeCounts") int stripes,
      @ForAll("schedules") List<Step> steps)
      throws Exception {
    boolean ignore = ignoreCurrent && size >= 2;
    AtomicLong clock = new AtomicLong(origin);
    RollingWindow window =
        RollingWindow.builder()
            .size(size)
            .interval(Duration.ofNanos(intervalNanos))
            .ignoreCurrent(ignore)
            .ticker(clock::get)
            .stripes(stripes)
            .build();
    BruteForce model = new BruteForce(size, intervalNanos, ignore);
    ExecutorService[] threads = new ExecutorService[THREADS];
    try {
      for (int t = 0; t < THREADS; t++) {
        int stripe = t;
        threads[t] = Executors.newSingleThreadExecutor();
        threads[t].submit(() -> RollingWindow.useStripe(stripe)).get(10, TimeUnit.SECONDS);
      }
      long elapsed = 0;
      for (Step step : steps) {
        elapsed += step.advanceNanos() * intervalNanos / 64;
        clock.set(origin + elapsed);
        model.read(elapsed);
        ExecutorService thread = threads[step.thread()];
        // Future.get joins the step: its effects happen before the next step begins.
        if (step.add()) {
          thread.submit(() -> window.add(step.value())).get(10, TimeUnit.SECONDS);
          model.add(step.value());
        } else {
          model.check(thread.submit(window::reduce).get(10, TimeUnit.SECONDS));
        }
      }
    } finally {
      for (ExecutorService thread : threads) {
        if (thread != null) {
          thread.shutdown();
          assertThat(thread.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
      }
    }
  }

  /** The list of every add, with the time it counts at, aggregated over the documented span. */
  private static final class BruteForce {
    private final int size;
    private final long intervalNanos;
    private final boolean ignore;
    private final List<Event> events = new ArrayList<>();
    private long latest; // the origin's read is time 0; readings before it count as 0

    BruteForce(int size, long intervalNanos, boolean ignore) {
      this.size = size;
      this.intervalNanos = intervalNanos;
      this.ignore = ignore;
    }

    /** A clock read at {@code elapsed} since the origin: a read behind the latest counts as it. */
    void read(long elapsed) {
      latest = Math.max(latest, elapsed);
    }

    void add(double value) {
      events.add(new Event(latest, value));
    }

    void check(RollingSnapshot actual) {
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
        long t = e.elapsedNanos();
        boolean inSpan = t >= spanStart && (ignore ? t < bucket * intervalNanos : t <= latest);
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
      // Values are whole numbers far below 2^53, so sums are exact in any order.
      assertThat(actual.sum()).as("sum at %d", latest).isEqualTo(sum);
      // The length rates divide by: the covered buckets from the origin's bucket 0 on.
      long lengthNanos = Math.max(0, newest - Math.max(oldest, 0) + 1) * intervalNanos;
      assertThat(actual.length())
          .as("length at %d", latest)
          .isEqualTo(Duration.ofNanos(lengthNanos));
      if (count == 0) {
        assertThat(actual.min()).isEmpty();
        assertThat(actual.max()).isEmpty();
        assertThat(actual.ratePerSecond()).isZero();
      } else {
        // Compared bit for bit: -0.0 and 0.0 are different minima and maxima.
        assertThat(Double.doubleToRawLongBits(actual.min().getAsDouble()))
            .as("min %s at %d, expected %s", actual.min(), latest, min)
            .isEqualTo(Double.doubleToRawLongBits(min));
        assertThat(Double.doubleToRawLongBits(actual.max().getAsDouble()))
            .as("max %s at %d, expected %s", actual.max(), latest, max)
            .isEqualTo(Double.doubleToRawLongBits(max));
        assertThat(actual.mean()).hasValue(sum / count);
        assertThat(actual.ratePerSecond()).isEqualTo(count * 1e9 / lengthNanos);
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
  Arbitrary<Integer> stripeCounts() {
    return Arbitraries.of(2, 4);
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
    // Whole numbers, and both zeros, whose order Math.min and Math.max define.
    Arbitrary<Double> value =
        Arbitraries.frequencyOf(
            Tuple.of(8, Arbitraries.integers().between(-1_000, 1_000).map(i -> (double) i)),
            Tuple.of(1, Arbitraries.just(-0.0)),
            Tuple.of(1, Arbitraries.just(0.0)));
    Arbitrary<Step> step =
        Combinators.combine(
                advance,
                Arbitraries.integers().between(0, 3),
                value,
                Arbitraries.integers().between(0, THREADS - 1))
            .as((a, kind, v, thread) -> new Step(a, kind != 0, v, thread));
    return step.list().ofMinSize(1).ofMaxSize(120);
  }
}
