package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.testkit.SlidingLogOracle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * Run-time changes of a plan's limits ({@link ReloadableRules#changePlan}) and reloads that put the
 * configuration's limits back, at random moments, on the starter's in-memory backend and a fake
 * clock: at every grant, the brute-force log of the key's grants ({@link SlidingLogOracle}) holds
 * at most the limit in service in the window ending then. The log is the key's whole history, never
 * cut at a change: by the rule of {@code Plan} a window keeps every permit it holds when its limit
 * changes, so a cut followed by a raise can never grant a permit twice. Keys on {@code free} share
 * its changes; a key on no plan keeps the rule's limits throughout.
 */
class PlanChangeOracleTest {

  private static final String RULE = "api";
  private static final Duration WINDOW = Duration.ofSeconds(1);
  private static final long TICK = Duration.ofMillis(1).toNanos();
  private static final long W = WINDOW.toNanos();

  private static SlidingWindowHttpProperties properties() {
    SlidingWindowHttpProperties properties = new SlidingWindowHttpProperties();
    SlidingWindowHttpProperties.Rule rule = new SlidingWindowHttpProperties.Rule();
    rule.setPaths(List.of("/api/**"));
    rule.setLimits(List.of(spec(2)));
    PlanProperties free = new PlanProperties();
    free.setLimits(List.of(spec(5)));
    rule.setPlans(Map.of("free", free));
    rule.setPlanKeys(Map.of("free", List.of("free-0", "free-1", "free-2")));
    properties.setRules(Map.of(RULE, rule));
    return properties;
  }

  private static SlidingWindowHttpProperties.LimitSpec spec(long permits) {
    SlidingWindowHttpProperties.LimitSpec spec = new SlidingWindowHttpProperties.LimitSpec();
    spec.setPermits(permits);
    spec.setWindow(WINDOW);
    return spec;
  }

  @Property(tries = 200)
  void changePlan_atRandomMoments_noGrantTakesTheWindowPastTheLimitInService(@ForAll long seed) {
    Random random = new Random(seed);
    FakeTicker ticker = new FakeTicker(random.nextLong());
    RateLimiterFactory backend = RateLimiterFactory.inMemory(ticker, 1_000);
    SlidingWindowHttpProperties properties = properties();
    // The stack's part: one limiter per rule, with the rule's limits, through the reloading
    // factory.
    ReloadableRules<KeyedRateLimiter<String>> rules =
        new ReloadableRules<>(
            backend,
            (props, limiters) -> {
              List<Limit> limits = new ArrayList<>();
              props.getRules().get(RULE).getLimits().forEach(s -> limits.add(s.toLimit(RULE)));
              return limiters.create(RULE, limits, false);
            },
            properties);
    List<String> keys = List.of("free-0", "free-1", "free-2", "none");
    Map<String, SlidingLogOracle> logs = new HashMap<>();
    long freePermits = 5;
    long now = 0;
    for (int step = 0; step < 300; step++) {
      long gap = TICK * random.nextInt(random.nextBoolean() ? 5 : 400);
      now += gap;
      ticker.advance(gap);
      int op = random.nextInt(100);
      String where = "seed " + seed + ", step " + step + ", t=" + now + ", free " + freePermits;
      if (op < 8) {
        freePermits = 1 + random.nextInt(10);
        rules.changePlan(RULE, "free", List.of(Limit.of(freePermits, WINDOW)));
        continue;
      }
      if (op < 10) {
        rules.reload(properties);
        freePermits = 5;
        continue;
      }
      String key = keys.get(random.nextInt(keys.size()));
      long limit = key.startsWith("free-") ? freePermits : 2;
      SlidingLogOracle log = logs.computeIfAbsent(key, k -> new SlidingLogOracle(10, W));
      long permits = 1 + random.nextInt((int) Math.min(limit, 3));
      if (rules.get().tryAcquire(key, permits)) {
        log.record(now, permits);
        assertThat(log.countAt(now, W))
            .as("what the window ending at this grant of %s holds, %s", key, where)
            .isLessThanOrEqualTo(limit);
      }
    }
  }
}
