package io.slidingwindow.testkit;

import io.slidingwindow.Decision;
import io.slidingwindow.Limit;
import io.slidingwindow.RateLimiter;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Test;

/**
 * Model-checks the in-process limiter's race between decisions under its lock and the refusals that
 * {@code tryAcquire} makes without it, against the brute-force {@link SlidingLogOracle}: Lincheck
 * runs small scenarios of requests and clock moves on two threads through every interleaving it
 * reaches within its bounds, and checks each outcome, figures of every {@link Decision} included,
 * against the oracle in some order that respects real time.
 *
 * <p>The limit is exact (an exact sliding log of two permits per 10 ns), so the oracle decides as
 * the limiter must. The clock is shared and moved by an operation: a thread may read it, lose the
 * processor, and decide later, after the window it read has moved on, or refuse without the lock on
 * a {@code refusingUntil} another thread has just published.
 */
@Param(name = "permits", gen = IntGen.class, conf = "1:2")
@Param(name = "steps", gen = IntGen.class, conf = "1:2")
public class LocalRateLimiterLincheckTest {

  private static final long WINDOW = 10;

  /** A clock move: half a window. */
  private static final long STEP = 5;

  private static final Limit LIMIT = Limit.exact(2, Duration.ofNanos(WINDOW));

  private final FakeTicker ticker = new FakeTicker();
  private final RateLimiter limiter = RateLimiter.builder().limit(LIMIT).ticker(ticker).build();

  @Operation
  public void advance(@Param(name = "steps") int steps) {
    ticker.advance(steps * STEP);
  }

  @Operation
  public boolean tryAcquire(@Param(name = "permits") int permits) {
    return limiter.tryAcquire(permits);
  }

  @Operation
  public Decision decide(@Param(name = "permits") int permits) {
    return limiter.decide(permits);
  }

  /** The oracle at the clock's time: grants what an exact log grants, with its figures. */
  public static final class Spec {
    private final SlidingLogOracle log = SlidingLogOracle.of(LIMIT);
    private long clock;

    public void advance(int steps) {
      clock += steps * STEP;
    }

    public boolean tryAcquire(int permits) {
      return decide(permits).allowed();
    }

    public Decision decide(int permits) {
      boolean granted = log.wouldGrant(clock, permits);
      if (granted) {
        log.record(clock, permits);
      }
      long remaining = LIMIT.permits() - log.countAt(clock, WINDOW);
      Duration resetAfter = Duration.ofNanos(log.emptyAt(clock) - clock);
      return granted
          ? Decision.granted(remaining, resetAfter, LIMIT)
          : Decision.refused(
              remaining,
              Duration.ofNanos(log.earliestGrant(clock, permits) - clock),
              resetAfter,
              LIMIT);
    }
  }

  @Test
  void decideAndLockFreeRefusals_everyInterleaving_agreeWithTheOracle() {
    new ModelCheckingOptions()
        // The window fills, then one thread refuses without the lock while the other moves the
        // clock to the very end of refusingUntil and takes the freed permits.
        .addCustomScenario(
            scenario(
                calls(op("tryAcquire", 2)),
                calls(op("decide", 1)),
                calls(op("tryAcquire", 1), op("decide", 2)),
                calls(op("advance", 2), op("tryAcquire", 2))))
        .iterations(8)
        .invocationsPerIteration(300)
        .threads(2)
        .actorsPerThread(3)
        .actorsBefore(1)
        .actorsAfter(1)
        .sequentialSpecification(Spec.class)
        .check(getClass());
  }

  private static Actor op(String name, Object... arguments) {
    for (Method method : LocalRateLimiterLincheckTest.class.getMethods()) {
      if (method.getName().equals(name)) {
        return new Actor(method, Arrays.asList(arguments));
      }
    }
    throw new IllegalArgumentException("no operation " + name);
  }

  private static List<Actor> calls(Actor... calls) {
    return List.of(calls);
  }

  @SafeVarargs
  private static ExecutionScenario scenario(
      List<Actor> initial, List<Actor> post, List<Actor>... threads) {
    List<List<Actor>> parallel = new ArrayList<>();
    for (List<Actor> thread : threads) {
      parallel.add(thread);
    }
    return new ExecutionScenario(initial, parallel, post, null);
  }
}
