package io.slidingwindow.internal;

import static io.slidingwindow.ModelScenarios.calls;
import static io.slidingwindow.ModelScenarios.scenario;

import io.slidingwindow.ModelScenarios;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.jetbrains.lincheck.datastructures.BooleanGen;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Test;

/**
 * Model-checks the striped rings of {@code RollingWindow} against a brute-force sequential
 * specification: Lincheck runs small scenarios of adds, reduces and clock moves on two threads
 * through every interleaving it can reach within its bounds, switching threads at each shared read
 * and write, and checks that every outcome is one the specification could give in some order that
 * respects real time.
 *
 * <p>Both threads start every add on stripe 0, so that they collide on its lock: a failed {@code
 * tryLock} grows the rings to a second stripe, where the next add of that thread goes. A reduce
 * reads each stripe without its lock (the seqlock passes) and falls back to the lock after repeated
 * failed passes; the model checker reaches that fallback by holding an add inside the lock. The
 * clock is shared and moved by an operation, so a thread may read it and act later, as a preempted
 * thread does.
 *
 * <p>Each scenario holds one operation before the threads start, three per thread and one after;
 * the bounds keep the whole class to a few seconds once Lincheck has instrumented the classes.
 */
@Param(name = "value", gen = IntGen.class, conf = "1:3")
@Param(name = "steps", gen = IntGen.class, conf = "1:2")
@Param(name = "ignoreCurrent", gen = BooleanGen.class)
public class StripedBucketsLincheckTest {

  private static final int SIZE = 2;
  private static final long INTERVAL = 10;

  /** A clock move: half a bucket, so that moves of one or two steps stay in or leave a bucket. */
  private static final long STEP = 5;

  private final StripedBuckets buckets = new StripedBuckets(SIZE, INTERVAL, 1);
  private final AtomicLong clock = new AtomicLong();

  @Operation
  public void advance(@Param(name = "steps") int steps) {
    clock.addAndGet(steps * STEP);
  }

  @Operation
  public void add(@Param(name = "value") int value) {
    StripedBuckets.useStripe(0);
    buckets.add(clock.get(), value);
  }

  @Operation
  public String reduce(@Param(name = "ignoreCurrent") boolean ignoreCurrent) {
    StripedBuckets.Totals t = buckets.reduce(clock.get(), ignoreCurrent);
    return figures(t.count(), t.sum(), t.min(), t.max(), t.lengthNanos());
  }

  private static String figures(long count, double sum, double min, double max, long lengthNanos) {
    return count + " values, sum " + sum + ", min " + min + ", max " + max + ", " + lengthNanos;
  }

  /**
   * Every add kept in a list with the bucket it landed in: the bucket of the clock, or the newest
   * bucket any add or reduce has reached if that is newer (a stale clock read counts at the
   * window's latest time). A reduce sums the list over its buckets.
   */
  public static final class Spec {
    private final List<long[]> adds = new ArrayList<>();
    private long clock;
    private long newest;

    public void advance(int steps) {
      clock += steps * STEP;
    }

    public void add(int value) {
      newest = Math.max(newest, WindowMath.bucket(clock, INTERVAL));
      adds.add(new long[] {newest, value});
    }

    public String reduce(boolean ignoreCurrent) {
      newest = Math.max(newest, WindowMath.bucket(clock, INTERVAL));
      long oldest = newest - SIZE + 1;
      long last = ignoreCurrent ? newest - 1 : newest;
      long count = 0;
      double sum = 0;
      double min = Double.POSITIVE_INFINITY;
      double max = Double.NEGATIVE_INFINITY;
      for (long[] add : adds) {
        if (add[0] >= oldest && add[0] <= last) {
          double value = add[1];
          count++;
          sum += value;
          min = Math.min(min, value);
          max = Math.max(max, value);
        }
      }
      long first = Math.max(oldest, 0);
      return figures(count, sum, min, max, last < first ? 0 : (last - first + 1) * INTERVAL);
    }
  }

  @Test
  void addAndReduce_everyInterleaving_matchTheSequentialSpecification() {
    ModelScenarios s = ModelScenarios.of(getClass());
    new ModelCheckingOptions()
        // A reduce of buckets 0 and 1 meets an add that rolls the stripe on to bucket 2, which
        // takes bucket 0's slot in the ring of two.
        .addCustomScenario(
            scenario(
                calls(s.op("add", 2), s.op("advance", 2), s.op("add", 3)),
                calls(s.op("reduce", false)),
                calls(s.op("reduce", true)),
                calls(s.op("advance", 2), s.op("add", 1))))
        // Two adds collide on stripe 0 while a reduce reads it.
        .addCustomScenario(
            scenario(
                calls(s.op("add", 1)),
                calls(s.op("reduce", false)),
                calls(s.op("add", 2), s.op("reduce", false)),
                calls(s.op("add", 3), s.op("reduce", true))))
        .iterations(8)
        .invocationsPerIteration(300)
        .threads(2)
        .actorsPerThread(3)
        .actorsBefore(1)
        .actorsAfter(1)
        .sequentialSpecification(Spec.class)
        .check(getClass());
  }
}
