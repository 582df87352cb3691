package io.slidingwindow.examples;

import io.github.bucket4j.Bucket;
import io.github.bucket4j.TimeMeter;
import io.slidingwindow.Limit;
import io.slidingwindow.RateLimiter;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Puts a limit of 100 per second under a bursty load, on a simulated clock, and prints for each
 * sliding second what slidingwindow granted beside what a token bucket (Bucket4j, capacity 100,
 * refilling 100 per second) granted.
 *
 * <p>The token bucket starts full and refills while it grants, so a second that begins with a full
 * bucket can hold up to 200 grants. The sliding window never holds more than 100.
 */
public final class BurstDemo {

  static final long LIMIT = 100;
  static final long SECOND = Duration.ofSeconds(1).toNanos();
  static final long MILLI = Duration.ofMillis(1).toNanos();

  /** The simulated load: when each request arrives, in nanoseconds from the start. */
  static List<Long> load() {
    List<Long> arrivals = new ArrayList<>();
    for (long t = 0; t < SECOND; t += 100 * MILLI) {
      arrivals.add(t); // 0-1 s: quiet, 10 per second
    }
    for (long t = SECOND; t < 2 * SECOND; t += SECOND / 300) {
      arrivals.add(t); // 1-2 s: a flood of 300 per second
    }
    for (int i = 0; i < 150; i++) {
      arrivals.add(2_500 * MILLI); // 2.5 s: 150 at one instant
    }
    for (long t = 4 * SECOND; t < 5 * SECOND; t += 250 * MILLI) {
      for (int i = 0; i < 60; i++) {
        arrivals.add(t); // 4-5 s: bursts of 60 every 250 ms
      }
    }
    return arrivals;
  }

  /** Grant times of each limiter for {@link #load()}. */
  record Result(List<Long> slidingWindow, List<Long> tokenBucket) {}

  static Result simulate() {
    AtomicLong clock = new AtomicLong();
    RateLimiter ours =
        RateLimiter.builder()
            .limit(Limit.of(LIMIT, Duration.ofSeconds(1)))
            .ticker(clock::get)
            .build();
    Bucket bucket =
        Bucket.builder()
            .addLimit(limit -> limit.capacity(LIMIT).refillGreedy(LIMIT, Duration.ofSeconds(1)))
            .withCustomTimePrecision(
                new TimeMeter() {
                  @Override
                  public long currentTimeNanos() {
                    return clock.get();
                  }

                  @Override
                  public boolean isWallClockBased() {
                    return false;
                  }
                })
            .build();
    List<Long> oursGranted = new ArrayList<>();
    List<Long> bucketGranted = new ArrayList<>();
    for (long arrival : load()) {
      clock.set(arrival);
      if (ours.tryAcquire()) {
        oursGranted.add(arrival);
      }
      if (bucket.tryConsume(1)) {
        bucketGranted.add(arrival);
      }
    }
    return new Result(oursGranted, bucketGranted);
  }

  /** Grants with times in {@code [from, from + 1 s)}. */
  static long inSecondFrom(List<Long> grants, long from) {
    return grants.stream().filter(t -> t >= from && t < from + SECOND).count();
  }

  /** The most grants in any interval {@code [t, t + 1 s)}; one starting at a grant attains it. */
  static long maxInAnySecond(List<Long> grants) {
    long max = 0;
    for (long start : grants) {
      max = Math.max(max, inSecondFrom(grants, start));
    }
    return max;
  }

  static void print(Result result, PrintStream out) {
    out.printf(
        "Limit: %d per second. Load: %d requests over 5 s, in floods and bursts.%n%n",
        LIMIT, load().size());
    out.printf("%-22s %14s %14s%n", "sliding second", "slidingwindow", "token bucket");
    for (long from = 0; from <= 4 * SECOND; from += 250 * MILLI) {
      long ours = inSecondFrom(result.slidingWindow(), from);
      long bucket = inSecondFrom(result.tokenBucket(), from);
      out.printf(
          "[%5.2f s, %5.2f s)     %14d %14d%s%n",
          from / 1e9,
          (from + SECOND) / 1e9,
          ours,
          bucket,
          bucket > LIMIT ? "   <- token bucket over the limit" : "");
    }
    out.printf(
        "%nMost grants in ANY 1-second interval: slidingwindow %d, token bucket %d (limit %d).%n",
        maxInAnySecond(result.slidingWindow()), maxInAnySecond(result.tokenBucket()), LIMIT);
    out.printf(
        "Granted in all: slidingwindow %d, token bucket %d.%n",
        result.slidingWindow().size(), result.tokenBucket().size());
  }

  public static void main(String[] args) {
    print(simulate(), System.out);
  }

  private BurstDemo() {}
}
