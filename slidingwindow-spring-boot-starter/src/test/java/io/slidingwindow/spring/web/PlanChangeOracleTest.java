package io.slidingwindow.spring.web;

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
 * at most the limit in service in the window ending then. The log follows the rule of {@code Plan}
 * when the key takes new limits (on its next request): the window keeps every permit it counts, but
 * at most the new limit's newest. Keys on {@code free} share its changes; a key on no plan keeps
 * the rule's limits throughout.
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
    Map<String, Long> limitSeen = new HashMap<>();
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
      Long seen = limitSeen.put(key, limit);
      if (seen != null && seen != limit) {
        keepNewest(log, now, limit); // the key takes its new limits now, by the rule of Plan
      }
      long permits = 1 + random.nextInt((int) Math.min(limit, 3));
      if (rules.get().tryAcquire(key, permits)) {
        log.record(now, permits);
        assertThat(log.countAt(now, W))
            .as("what the window ending at this grant of %s holds, %s", key, where)
            .isLessThanOrEqualTo(limit);
      }
    }
  }

  /**
   * What a window keeps when its limit changes to {@code permits} (same window and precision): the
   * newest {@code permits} of those it counts at {@code now}; older ones are forgotten.
   */
  private static void keepNewest(SlidingLogOracle log, long now, long permits) {
    List<long[]> counted = new ArrayList<>();
    for (long[] grant : log.grants()) {
      if (grant[0] > now - W && grant[0] <= now) {
        counted.add(grant);
      }
    }
    log.clear();
    long budget = permits;
    List<long[]> kept = new ArrayList<>();
    for (int i = counted.size() - 1; i >= 0 && budget > 0; i--) {
      long taken = Math.min(counted.get(i)[1], budget);
      kept.add(0, new long[] {counted.get(i)[0], taken});
      budget -= taken;
    }
    kept.forEach(grant -> log.record(grant[0], grant[1]));
  }
}
