package io.slidingwindow.benchmarks;

import io.github.bucket4j.Bucket;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.slidingwindow.Limit;
import io.slidingwindow.RateLimiter;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;

/**
 * Non-blocking {@code tryAcquire} of one permit on one in-process limiter, against the peers, on
 * the system clock: {@code limit} permits per second, as in a published comparison of Bucket4j,
 * Guava and a ring-buffer limiter. With 100 per second nearly every call is refused; with 10 000
 * 000 per second a good share is granted.
 *
 * <p>Each fork runs one limiter, so every call site stays monomorphic. Run with {@code -prof gc} to
 * see allocation per call.
 */
@State(Scope.Benchmark)
public class TryAcquireBenchmark extends ThroughputRun {

  /** The limiters compared. */
  public enum Candidate {
    SLIDINGWINDOW,
    BUCKET4J,
    GUAVA,
    RESILIENCE4J
  }

  @Param({"SLIDINGWINDOW", "BUCKET4J", "GUAVA", "RESILIENCE4J"})
  public Candidate candidate;

  @Param({"100", "10000000"})
  public long limit;

  private BooleanSupplier limiter;

  @Setup
  public void setUp() {
    Duration second = Duration.ofSeconds(1);
    switch (candidate) {
      case SLIDINGWINDOW -> {
        RateLimiter ours = RateLimiter.builder().limit(Limit.of(limit, second)).build();
        limiter = ours::tryAcquire;
      }
      case BUCKET4J -> {
        Bucket bucket =
            Bucket.builder().addLimit(l -> l.capacity(limit).refillGreedy(limit, second)).build();
        limiter = () -> bucket.tryConsume(1);
      }
      case GUAVA -> {
        com.google.common.util.concurrent.RateLimiter guava =
            com.google.common.util.concurrent.RateLimiter.create((double) limit);
        limiter = guava::tryAcquire;
      }
      case RESILIENCE4J -> {
        io.github.resilience4j.ratelimiter.RateLimiter r4j =
            io.github.resilience4j.ratelimiter.RateLimiter.of(
                "benchmark",
                RateLimiterConfig.custom()
                    .limitForPeriod((int) Math.min(Integer.MAX_VALUE, limit))
                    .limitRefreshPeriod(second)
                    .timeoutDuration(Duration.ZERO)
                    .build());
        limiter = r4j::acquirePermission;
      }
      default -> throw new IllegalStateException("unknown candidate " + candidate);
    }
  }

  @Benchmark
  public boolean tryAcquire() {
    return limiter.getAsBoolean();
  }

  @Benchmark
  @Threads(2)
  public boolean tryAcquire_twoThreads() {
    return limiter.getAsBoolean();
  }
}
