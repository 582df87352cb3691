package io.slidingwindow.benchmarks;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Plan;
import io.slidingwindow.PlanResolver;
import io.slidingwindow.RollingCounters;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The keyed calls that share one table: {@code tryAcquire} and {@code decide} on the in-process
 * keyed limiter (a limit that grants nearly every call) and {@code addAndGet} on the keyed counters
 * (adds of 1 000, so that sums leave the range of cached boxes), each cycling over 1 024 live keys.
 * Run with {@code -prof gc}: once compiled, {@code tryAcquire} and {@code addAndGet} allocate
 * nothing per call, {@code decide} its {@link Decision} and, unless the JIT removes it, the 16-byte
 * holder that carries it out of the key's lock. The {@code Planned} calls do the same on a limiter
 * built with a {@link PlanResolver}, every other key on a plan of its own limits: the plan is asked
 * once per key and kept with the key's state, so a call on a plan costs what a call without one
 * does.
 */
@State(Scope.Thread)
public class KeyedCallsBenchmark extends ThroughputRun {

  private static final int KEYS = 1024;

  private final String[] keys = new String[KEYS];
  private KeyedRateLimiter<String> limiter;
  private KeyedRateLimiter<String> planned;
  private RollingCounters<String> counters;
  private int next;

  @Setup
  public void setUp() {
    limiter = KeyedRateLimiter.builder().limit(Limit.of(1_000_000, Duration.ofSeconds(1))).build();
    counters = RollingCounters.builder(10, Duration.ofMillis(100)).build();
    Map<String, Plan> plans = new HashMap<>();
    Plan pro = Plan.of("pro", Limit.of(2_000_000, Duration.ofSeconds(1)));
    for (int i = 0; i < KEYS; i++) {
      keys[i] = "key-" + i;
      if (i % 2 == 0) {
        plans.put(keys[i], pro);
      }
    }
    planned =
        KeyedRateLimiter.builder()
            .limit(Limit.of(1_000_000, Duration.ofSeconds(1)))
            .build(PlanResolver.of(plans));
  }

  /** One permit of the next key. */
  @Benchmark
  public boolean tryAcquire() {
    next = (next + 1) & (KEYS - 1);
    return limiter.tryAcquire(keys[next], 1);
  }

  /** The decision on one permit of the next key. */
  @Benchmark
  public Decision decide() {
    next = (next + 1) & (KEYS - 1);
    return limiter.decide(keys[next], 1);
  }

  /** Adds 1 000 to the next key's counter and returns its window's sum. */
  @Benchmark
  public long addAndGet() {
    next = (next + 1) & (KEYS - 1);
    return counters.addAndGet(keys[next], 1000);
  }

  /** One permit of the next key, on a limiter with plans. */
  @Benchmark
  public boolean tryAcquirePlanned() {
    next = (next + 1) & (KEYS - 1);
    return planned.tryAcquire(keys[next], 1);
  }

  /** The decision on one permit of the next key, on a limiter with plans. */
  @Benchmark
  public Decision decidePlanned() {
    next = (next + 1) & (KEYS - 1);
    return planned.decide(keys[next], 1);
  }
}
