package io.slidingwindow;

import static io.slidingwindow.ModelScenarios.calls;
import static io.slidingwindow.ModelScenarios.scenario;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ManagedStrategyGuaranteeKt;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Test;

/**
 * Model-checks the keyed limiter's table (KeyTable) while it evicts keys, against a brute-force
 * sequential specification that never forgets a grant: a log of grant times per key. Lincheck runs
 * small scenarios of requests for two keys, clean-ups and clock moves on two threads through every
 * interleaving it reaches within its bounds, and checks each outcome against the log in some order
 * that respects real time.
 *
 * <p>Eviction runs in a clean-up and, two entries at a time, whenever a new key is tracked, so a
 * request can find its key's entry, lose the processor, and meet it again after another thread
 * evicted it; it must then look the key up again rather than record in an entry that has left the
 * table. With an exact limit of one permit per window, a grant recorded in a lost entry lets the
 * next request for that key through where the log refuses it.
 *
 * <p>The table holds up to four keys, more than the two keys and the one that two threads can be
 * tracking at once, so no request meets a full table (whose refusals depend on the order of its
 * sweep, which the log does not model).
 */
@Param(name = "key", gen = IntGen.class, conf = "0:1")
@Param(name = "steps", gen = IntGen.class, conf = "1:2")
public class KeyedEvictionLincheckTest {

  private static final long WINDOW = 10;

  /** A clock move: half a window. */
  private static final long STEP = 5;

  private static final Limit LIMIT = Limit.exact(1, Duration.ofNanos(WINDOW));

  private final AtomicLong clock = new AtomicLong();
  private final KeyedRateLimiter<Integer> limiter =
      KeyedRateLimiter.builder().limit(LIMIT).ticker(clock::get).maxKeys(4).build();

  @Operation
  public void advance(@Param(name = "steps") int steps) {
    clock.addAndGet(steps * STEP);
  }

  @Operation
  public boolean tryAcquire(@Param(name = "key") int key) {
    return limiter.tryAcquire(key);
  }

  @Operation
  public Decision decide(@Param(name = "key") int key) {
    return limiter.decide(key, 1);
  }

  @Operation
  public void cleanUp() {
    limiter.cleanUp();
  }

  /** Every grant kept, per key; a request is granted if the key's last window holds none. */
  public static final class Spec {
    private final Map<Integer, List<Long>> grants = new HashMap<>();
    private long clock;

    public void advance(int steps) {
      clock += steps * STEP;
    }

    public boolean tryAcquire(int key) {
      return decide(key).allowed();
    }

    public Decision decide(int key) {
      List<Long> log = grants.computeIfAbsent(key, k -> new ArrayList<>());
      long newest = Long.MIN_VALUE;
      for (long granted : log) {
        if (granted > clock - WINDOW) {
          newest = Math.max(newest, granted);
        }
      }
      if (newest == Long.MIN_VALUE) {
        log.add(clock);
        return Decision.granted(0, Duration.ofNanos(WINDOW), LIMIT);
      }
      Duration leaves = Duration.ofNanos(newest + WINDOW - clock);
      return Decision.refused(0, leaves, leaves, LIMIT);
    }

    public void cleanUp() {}
  }

  @Test
  void requestsAndEvictions_everyInterleaving_forgetNoGrant() {
    ModelScenarios s = ModelScenarios.of(getClass());
    // Key 0 was granted and its window has passed: one thread's request finds its entry while the
    // other evicts it, in a clean-up or in the sweep that tracking key 1 starts; the request after
    // falls in the window of the first.
    List<Actor> grantedThenEmpty = calls(s.op("tryAcquire", 0), s.op("advance", 2));
    List<Actor> twoRequests = calls(s.op("tryAcquire", 0), s.op("tryAcquire", 0));
    new ModelCheckingOptions()
        // The JDK's map is taken as correct: no switch inside its calls, only before and after.
        .addGuarantee(
            ManagedStrategyGuaranteeKt.forClasses(
                    name -> name.startsWith(ConcurrentHashMap.class.getName()))
                .allMethods()
                .treatAsAtomic())
        .addCustomScenario(scenario(grantedThenEmpty, calls(), twoRequests, calls(s.op("cleanUp"))))
        .addCustomScenario(
            scenario(grantedThenEmpty, calls(), twoRequests, calls(s.op("tryAcquire", 1))))
        .addCustomScenario(
            scenario(
                grantedThenEmpty,
                calls(s.op("decide", 0)),
                calls(s.op("decide", 0)),
                calls(s.op("cleanUp"))))
        .iterations(8)
        .invocationsPerIteration(300)
        .threads(2)
        .actorsPerThread(3)
        .actorsBefore(2)
        .actorsAfter(1)
        .sequentialSpecification(Spec.class)
        .check(getClass());
  }
}
