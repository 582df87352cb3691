package io.slidingwindow.testkit;

import io.slidingwindow.Limit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A test scenario for a limiter: its limits, the clock's origin, and a list of requests, each a gap
 * since the previous one and a number of permits. Every time and duration is a multiple of {@code
 * tickNanos}, the finest unit the backend under test resolves.
 *
 * <p>{@link #random} mixes plain random gaps with adversarial ones: bursts at one instant, requests
 * one tick before, at and after bucket edges, and gaps of one window give or take a tick; on
 * request, some gaps are negative (the clock steps back), which a limiter must take as no time
 * passing.
 *
 * @param limits one to three limits
 * @param originNanos the clock's reading when the limiter is built
 * @param gapsNanos for each request, the time since the previous request (or since the build)
 * @param permits for each request, its weight
 * @param tickNanos the unit every time is a multiple of
 */
public record Schedule(
    List<Limit> limits,
    long originNanos,
    List<Long> gapsNanos,
    List<Long> permits,
    long tickNanos) {

  /** Copies the lists, so a schedule cannot change after it is built. */
  public Schedule {
    limits = List.copyOf(limits);
    gapsNanos = List.copyOf(gapsNanos);
    permits = List.copyOf(permits);
    if (gapsNanos.size() != permits.size()) {
      throw new IllegalArgumentException(
          "gapsNanos and permits must be as long as each other, were "
              + gapsNanos.size()
              + " and "
              + permits.size());
    }
  }

  /** The kinds of clock origin a backend is tested from. */
  public enum Origin {
    ZERO,
    RANDOM,
    NEAR_MAX,
    NEGATIVE
  }

  /** The number of requests. */
  public int size() {
    return gapsNanos.size();
  }

  /** The smallest limit's permits: the largest valid request. */
  public long largestRequest() {
    return limits.stream().mapToLong(Limit::permits).min().orElseThrow();
  }

  /**
   * The time the limiter should act at for each request: the running sum of the gaps, but never
   * less than an earlier one, since a clock that steps back means no time passed.
   */
  public long[] effectiveTimes() {
    long[] times = new long[gapsNanos.size()];
    long now = 0;
    long latest = 0;
    for (int i = 0; i < times.length; i++) {
      now += gapsNanos.get(i);
      latest = Math.max(latest, now);
      times[i] = latest;
    }
    return times;
  }

  /** The longest window in nanoseconds. */
  public long longestWindowNanos() {
    return limits.stream().mapToLong(Limit::windowNanos).max().orElseThrow();
  }

  /**
   * A random schedule.
   *
   * @param exact whether every limit is tracked at the finest precision, one tick
   */
  public static Schedule random(Random random, long tickNanos, boolean exact) {
    return random(random, tickNanos, exact, false);
  }

  /**
   * A random schedule in which, if {@code backwards}, about one gap in twenty steps the clock back.
   *
   * @param exact whether every limit is tracked at the finest precision, one tick
   */
  public static Schedule random(Random random, long tickNanos, boolean exact, boolean backwards) {
    int limitCount = 1 + random.nextInt(3);
    List<Limit> limits = new ArrayList<>();
    for (int i = 0; i < limitCount; i++) {
      limits.add(randomLimit(random, tickNanos, exact));
    }
    long longest = limits.stream().mapToLong(Limit::windowNanos).max().orElseThrow();
    long smallestN = limits.stream().mapToLong(Limit::permits).min().orElseThrow();
    Origin origin = Origin.values()[random.nextInt(Origin.values().length)];
    long originNanos = origin(origin, random, longest, tickNanos);

    int requests = 30 + random.nextInt(250);
    List<Long> gaps = new ArrayList<>(requests);
    List<Long> permits = new ArrayList<>(requests);
    long now = 0;
    for (int i = 0; i < requests; i++) {
      Limit pick = limits.get(random.nextInt(limits.size()));
      long gap =
          backwards && random.nextInt(20) == 0
              ? -tickNanos * (1 + (long) (random.nextDouble() * 2 * pick.windowNanos() / tickNanos))
              : gap(random, pick, now, tickNanos);
      gaps.add(gap);
      now += gap;
      long weight = random.nextInt(4) == 0 ? 1 + (long) (random.nextDouble() * smallestN) : 1;
      permits.add(Math.min(weight, smallestN));
    }
    return new Schedule(limits, originNanos, gaps, permits, tickNanos);
  }

  private static Limit randomLimit(Random random, long tick, boolean exact) {
    long n =
        switch (random.nextInt(4)) {
          case 0 -> 1L + random.nextInt(3);
          case 1 -> 1L + random.nextInt(10);
          case 2 -> 1L + random.nextInt(60);
          default -> 100L + random.nextInt(200);
        };
    long windowTicks = 1L + random.nextInt(random.nextBoolean() ? 20 : 2_000);
    Limit limit = Limit.of(n, Duration.ofNanos(windowTicks * tick));
    long precisionTicks =
        exact
            ? 1
            : switch (random.nextInt(4)) {
              case 0 -> windowTicks; // one bucket per window
              case 1 -> Math.max(1, windowTicks / (1 + random.nextInt(10)));
              case 2 -> 1L + random.nextInt((int) windowTicks); // need not divide the window
              default -> 1;
            };
    return limit.withPrecision(Duration.ofNanos(precisionTicks * tick));
  }

  private static long origin(Origin origin, Random random, long longestWindow, long tick) {
    long raw =
        switch (origin) {
          case ZERO -> 0;
          case RANDOM -> random.nextLong();
          case NEAR_MAX -> Long.MAX_VALUE - longestWindow - random.nextInt(1_000);
          case NEGATIVE -> -1 - (random.nextLong() >>> 1);
        };
    return Math.floorDiv(raw, tick) * tick;
  }

  private static long gap(Random random, Limit limit, long now, long tick) {
    long p = limit.precisionNanos();
    long w = limit.windowNanos();
    return switch (random.nextInt(8)) {
      case 0, 1 -> 0; // a burst at one instant
      case 2 -> {
        // one tick before, at, or one tick after the next bucket edge
        long toEdge = p - Math.floorMod(now, p);
        long offset = (random.nextInt(3) - 1) * tick;
        yield Math.max(0, toEdge + offset);
      }
      case 3 -> Math.max(0, w + (random.nextInt(3) - 1) * tick);
      case 4 -> tick * (1 + random.nextInt(3));
      default -> tick * (long) (random.nextDouble() * (2 * w / tick + 1));
    };
  }

  @Override
  public String toString() {
    return "Schedule[limits="
        + limits
        + ", origin="
        + originNanos
        + ", tick="
        + tickNanos
        + ", "
        + gapsNanos.size()
        + " requests]";
  }
}
