package io.slidingwindow.benchmarks;

import com.alibaba.csp.sentinel.slots.statistic.metric.ArrayMetric;
import com.netflix.hystrix.util.HystrixRollingNumber;
import com.netflix.hystrix.util.HystrixRollingNumberEvent;
import io.slidingwindow.RollingWindow;
import io.slidingwindow.Ticker;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;

/**
 * Recording into a rolling window of 10 buckets of 100 ms (one second), and recording then reading
 * it, against Sentinel's LeapArray-based {@code ArrayMetric} and Hystrix's {@code
 * HystrixRollingNumber}, with one and two threads on one shared window.
 *
 * <p>Each peer makes its cheapest call: Sentinel's {@code addPass(1)} and Hystrix's {@code
 * increment(SUCCESS)} bump one counter, and read back one sum ({@code pass()}, {@code
 * getRollingSum(SUCCESS)}); {@link RollingWindow#add(long)} records count, sum, min and max, and
 * {@link RollingWindow#reduce()} returns all of them in a snapshot. Every implementation reads a
 * clock once per call: {@code slidingwindow} its default {@link Ticker#coarse()}, a field that a
 * daemon thread refreshes every millisecond, as Sentinel's {@code TimeUtil} does once traffic is
 * high; Hystrix {@code System.currentTimeMillis}. {@code slidingwindow-nanotime} is the same window
 * on {@link Ticker#system()}, to show how much of the cost is the clock.
 *
 * <p>Run: {@code java -jar slidingwindow-benchmarks/target/benchmarks.jar RollingWindowBenchmark
 * -prof gc}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Benchmark)
public class RollingWindowBenchmark {

  /** One rolling window under test. */
  interface Recorder {
    void add(long value);

    /** Records, then reads the window's sum. */
    long addAndRead(long value);
  }

  @Param({"slidingwindow", "slidingwindow-nanotime", "sentinel", "hystrix"})
  public String impl;

  private Recorder recorder;

  /** A per-thread value, so that threads do not share a counter of their own. */
  @State(Scope.Thread)
  public static class Value {
    long next;

    long next() {
      return ++next & 1023;
    }
  }

  @Setup(Level.Trial)
  public void setUp() {
    switch (impl) {
      case "slidingwindow", "slidingwindow-nanotime" -> {
        RollingWindow.Builder builder =
            RollingWindow.builder().size(10).interval(Duration.ofMillis(100));
        if (impl.equals("slidingwindow-nanotime")) {
          builder.ticker(Ticker.system());
        }
        RollingWindow window = builder.build();
        recorder =
            new Recorder() {
              @Override
              public void add(long value) {
                window.add(value);
              }

              @Override
              public long addAndRead(long value) {
                window.add(value);
                return window.reduce().count();
              }
            };
      }
      case "sentinel" -> {
        // BucketLeapArray of 10 buckets over 1000 ms, as Sentinel's StatisticNode builds its own.
        ArrayMetric metric = new ArrayMetric(10, 1000, false);
        recorder =
            new Recorder() {
              @Override
              public void add(long value) {
                metric.addPass(1);
              }

              @Override
              public long addAndRead(long value) {
                metric.addPass(1);
                return metric.pass();
              }
            };
      }
      case "hystrix" -> {
        HystrixRollingNumber number = new HystrixRollingNumber(1000, 10);
        recorder =
            new Recorder() {
              @Override
              public void add(long value) {
                number.increment(HystrixRollingNumberEvent.SUCCESS);
              }

              @Override
              public long addAndRead(long value) {
                number.increment(HystrixRollingNumberEvent.SUCCESS);
                return number.getRollingSum(HystrixRollingNumberEvent.SUCCESS);
              }
            };
      }
      default -> throw new IllegalArgumentException("impl: unknown " + impl);
    }
  }

  @Benchmark
  @Threads(1)
  public void add_1thread(Value value) {
    recorder.add(value.next());
  }

  @Benchmark
  @Threads(2)
  public void add_2threads(Value value) {
    recorder.add(value.next());
  }

  @Benchmark
  @Threads(1)
  public long addReduce_1thread(Value value) {
    return recorder.addAndRead(value.next());
  }

  @Benchmark
  @Threads(2)
  public long addReduce_2threads(Value value) {
    return recorder.addAndRead(value.next());
  }
}
