package io.slidingwindow.server.decide;

import io.slidingwindow.FailurePolicy;
import io.slidingwindow.Limit;
import io.slidingwindow.Ticker;
import io.slidingwindow.server.decide.Decisions.BadRequest;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ManagedStrategyGuaranteeKt;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Test;

/**
 * Model-checks the table of descriptor limit overrides (OverrideLimits) while a full domain evicts
 * a limit that looks idle, against a sequential specification that never forgets a grant: a log of
 * grant times per limit and key, and a table of at most one limit per domain that makes room only
 * by dropping a limit unused for longer than its window plus its precision.
 *
 * <p>A request under limit {@code L} looks up its limiter, loses the processor, and meets it again
 * after a request under another limit evicted it to make room. The limiter it then counts in has
 * left the table, so the next request under {@code L} gets a fresh one that knows nothing of that
 * grant: with one permit per window, two grants in one window.
 *
 * <p>A request reads the clock twice: to mark its limit used and then, in the limiter, to count.
 * The specification takes a request as one event at one time, so each request here reads the time
 * at which it started both times (a snapshot per thread), as if it were served in an instant; the
 * clock still moves between and during the requests of the other thread.
 *
 * <p>A request also takes its limit's place in the table and counts in two steps, so two requests
 * of one limit on two threads may take the place in one order and count in the other, which a third
 * request refused as full can witness. That is harmless (they count in one limiter, which never
 * grants more than its permits), but no specification of requests as single events allows it; so
 * the generated scenarios keep the requests of each limit on one thread.
 */
@Param(name = "key", gen = IntGen.class, conf = "0:1")
@Param(name = "steps", gen = IntGen.class, conf = "1:2")
public class OverrideLimitsLincheckTest {

  private static final long WINDOW = 10;

  /** Exact limits: one nanosecond of precision. */
  private static final long IDLE = WINDOW + 1;

  /** A clock move: 6 ns, so that two of them pass the window and make a limit idle. */
  private static final long STEP = 6;

  private static final Limit LIMIT = Limit.exact(1, Duration.ofNanos(WINDOW));

  /** Another limit of the same domain, the one that makes room. */
  private static final Limit OTHER = Limit.exact(2, Duration.ofNanos(WINDOW));

  private static final String DOMAIN = "d";
  private static final String GRANTED = "granted";
  private static final String REFUSED = "refused";
  private static final String FULL = "full";

  /**
   * The table's WARNINGs, silenced: the model checker would explore the logging code too. Held
   * here, since the logging framework keeps its loggers only weakly.
   */
  private static final java.util.logging.Logger QUIET =
      java.util.logging.Logger.getLogger(OverrideLimits.class.getName());

  static {
    QUIET.setLevel(java.util.logging.Level.OFF);
  }

  private final AtomicLong clock = new AtomicLong();

  /** The time at which this thread's request started. */
  private final ThreadLocal<Long> started = new ThreadLocal<>();

  private final Ticker ticker = () -> started.get();
  private final OverrideLimits overrides =
      new OverrideLimits(new MemoryStore(ticker), 1, 4, ticker);

  @Operation
  public void advance(@Param(name = "steps") int steps) {
    clock.addAndGet(steps * STEP);
  }

  /** A request for {@code key} under {@link #LIMIT}. */
  @Operation(nonParallelGroup = "limit")
  public String acquire(@Param(name = "key") int key) {
    return request(LIMIT, "k" + key);
  }

  /** A request under {@link #OTHER}, which needs the domain's one place. */
  @Operation(nonParallelGroup = "other")
  public String other() {
    return request(OTHER, "k0");
  }

  private String request(Limit limit, String key) {
    started.set(clock.get());
    try {
      return overrides.limiter(DOMAIN, limit, FailurePolicy.ALLOW).tryAcquire(key)
          ? GRANTED
          : REFUSED;
    } catch (BadRequest full) {
      return FULL;
    }
  }

  /**
   * The table of one place and every grant kept: a request under a limit that the table does not
   * hold takes the place if its limit is idle, else is refused as full; a request is granted if its
   * limit and key hold fewer grants than permits in the last window.
   */
  public static final class Spec {
    private final Map<Limit, Long> lastUsed = new HashMap<>();
    private final Map<String, List<Long>> grants = new HashMap<>();
    private long clock;

    public void advance(int steps) {
      clock += steps * STEP;
    }

    public String acquire(int key) {
      return request(LIMIT, "k" + key);
    }

    public String other() {
      return request(OTHER, "k0");
    }

    private String request(Limit limit, String key) {
      if (!lastUsed.containsKey(limit)) {
        lastUsed.values().removeIf(used -> clock - used > IDLE);
        if (!lastUsed.isEmpty()) {
          return FULL;
        }
      }
      lastUsed.put(limit, clock);
      List<Long> log = grants.computeIfAbsent(limit + "|" + key, k -> new ArrayList<>());
      long inWindow = log.stream().filter(granted -> granted > clock - WINDOW).count();
      if (inWindow >= limit.permits()) {
        return REFUSED;
      }
      log.add(clock);
      return GRANTED;
    }
  }

  @Test
  void requestsAndEvictions_everyInterleaving_forgetNoGrant() {
    // Key 0 of LIMIT was granted and its window has passed, so LIMIT is idle: one thread's request
    // finds LIMIT's limiter while the other thread's request under OTHER evicts it and the clock
    // moves on; the request after falls in the window of the first thread's grant.
    List<Actor> grantedThenIdle = List.of(op("acquire", 0), op("advance", 2));
    List<Actor> evictThenMove = List.of(op("other"), op("advance", 2));
    new ModelCheckingOptions()
        // The JDK's map is taken as correct: no switch inside its calls, only before and after.
        // So is the library's keyed limiter, which slidingwindow-core model-checks itself.
        .addGuarantee(
            ManagedStrategyGuaranteeKt.forClasses(
                    name ->
                        name.startsWith(ConcurrentHashMap.class.getName())
                            || (name.startsWith("io.slidingwindow.")
                                && !name.startsWith("io.slidingwindow.server.")))
                .allMethods()
                .treatAsAtomic())
        .addCustomScenario(
            scenario(
                grantedThenIdle,
                List.of(op("acquire", 0)),
                List.of(op("acquire", 0)),
                evictThenMove))
        .addCustomScenario(
            scenario(
                grantedThenIdle,
                List.of(),
                List.of(op("acquire", 0), op("acquire", 0)),
                evictThenMove))
        // Or the clock moves on before the first thread's request finds LIMIT's limiter, while the
        // other thread's request, which read the clock before, evicts it: the first thread's grant
        // is
        // then counted in a limiter that left the table, and the request after gets a fresh one.
        .addCustomScenario(
            scenario(
                grantedThenIdle,
                List.of(op("acquire", 0)),
                List.of(op("advance", 2), op("acquire", 0)),
                List.of(op("other"))))
        .iterations(8)
        .invocationsPerIteration(300)
        .threads(2)
        .actorsPerThread(3)
        .actorsBefore(2)
        .actorsAfter(1)
        .sequentialSpecification(Spec.class)
        .check(getClass());
  }

  private static Actor op(String name, Object... arguments) {
    for (Method method : OverrideLimitsLincheckTest.class.getMethods()) {
      if (method.getName().equals(name)) {
        return new Actor(method, Arrays.asList(arguments));
      }
    }
    throw new IllegalArgumentException("no operation " + name);
  }

  /** {@code initial} on one thread, then the two threads in parallel, then {@code post}. */
  private static ExecutionScenario scenario(
      List<Actor> initial, List<Actor> post, List<Actor> first, List<Actor> second) {
    return new ExecutionScenario(initial, List.of(first, second), post, null);
  }
}
