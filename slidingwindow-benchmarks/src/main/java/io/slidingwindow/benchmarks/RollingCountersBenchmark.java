package io.slidingwindow.benchmarks;

import io.slidingwindow.RollingCounters;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@code addAndGet} on the in-process keyed counters, cycling over 1 024 live keys, each add large
 * enough that the running sums leave the range of cached boxes. Run with {@code -prof gc}: the
 * figure that matters is {@code gc.alloc.rate.norm}, the bytes allocated per call, which should be
 * zero once the call is compiled.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class RollingCountersBenchmark {

  private static final int KEYS = 1024;

  private final String[] keys = new String[KEYS];
  private RollingCounters<String> counters;
  private int next;

  @Setup
  public void setUp() {
    counters = RollingCounters.builder(10, Duration.ofMillis(100)).build();
    for (int i = 0; i < KEYS; i++) {
      keys[i] = "key-" + i;
    }
  }

  /** Adds 1 000 to the next key and returns its window's sum. */
  @Benchmark
  public long addAndGet() {
    next = (next + 1) & (KEYS - 1);
    return counters.addAndGet(keys[next], 1000);
  }
}
