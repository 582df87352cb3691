package io.slidingwindow.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Plan;
import io.slidingwindow.PlanResolver;
import io.slidingwindow.testkit.FakeTicker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * A client that chooses its cost (a cost header or expression) asks more than its key's plan holds
 * but no more than the rule's limits: the request is refused and counted nowhere, on the
 * synchronous and the asynchronous path, with the library's limiter (which refuses it) and with an
 * application's own that throws for it. Before, the exception was taken for an invalid key and the
 * request counted under the client's address with the rule's larger limits.
 */
class PlanCostTest {

  private static final Limit FREE = Limit.of(10, Duration.ofSeconds(10));
  private static final Limit RULE = Limit.of(100, Duration.ofSeconds(10));

  /** A request: its key, its client address, and the cost it asks for. */
  private record Request(String key, String address, long cost) {}

  private final FakeTicker ticker = new FakeTicker();

  /**
   * An application's own limiter with plans that throws for a request larger than its key's plan,
   * as the library's did before: the HTTP core must not take that for an invalid key either.
   */
  private record ThrowsOverPlan(KeyedRateLimiter<String> inner)
      implements KeyedRateLimiter<String> {

    @Override
    public boolean tryAcquire(String key, long permits) {
      check(key, permits);
      return inner.tryAcquire(key, permits);
    }

    @Override
    public Decision decide(String key, long permits) {
      check(key, permits);
      return inner.decide(key, permits);
    }

    @Override
    public List<Limit> limits() {
      return inner.limits();
    }

    @Override
    public Plan planOf(String key) {
      return inner.planOf(key);
    }

    private void check(String key, long permits) {
      Plan plan = inner.planOf(key);
      if (plan != null && plan.limits().stream().anyMatch(limit -> limit.permits() < permits)) {
        throw new IllegalArgumentException("permits must be at most the plan's limit");
      }
    }
  }

  private EnforcementCore<Request> core() {
    return core(limiter -> limiter);
  }

  private EnforcementCore<Request> core(UnaryOperator<KeyedRateLimiter<String>> ownLimiter) {
    Plan free = Plan.of("free", FREE);
    RateLimiterFactory factory =
        (name, limits, countRefused) ->
            ownLimiter.apply(
                KeyedRateLimiter.builder()
                    .ticker(ticker)
                    .limits(limits)
                    .build(PlanResolver.of(Map.of(RequestKey.custom("on-free").value(), free))));
    return EnforcementCore.<Request>builder()
        .limiterFactory(factory)
        .clientKey(r -> RequestKey.address(r.address(), 64))
        .rule(
            HttpRule.builder("api").path("/api/**").limit(RULE).build(),
            r -> RequestKey.custom(r.key()),
            r -> true,
            Request::cost)
        .build();
  }

  private static EnforcementCore.Outcome sync(EnforcementCore<Request> core, Request request) {
    return core.enforce(request, "GET", List.of("/api/a"), QuotaHeaders::new);
  }

  private static EnforcementCore.Outcome async(EnforcementCore<Request> core, Request request) {
    return core.enforceAsync(request, "GET", List.of("/api/a"), QuotaHeaders::new)
        .toCompletableFuture()
        .join();
  }

  @Test
  void costAbovePlanBelowRule_syncAndAsync_refusedAndCountedNowhere() {
    assertRefusedAndCountedNowhere(this::core);
  }

  @Test
  void costAbovePlanBelowRule_ownLimiterThatThrows_refusedAndCountedNowhere() {
    assertRefusedAndCountedNowhere(() -> core(ThrowsOverPlan::new));
  }

  private static void assertRefusedAndCountedNowhere(Supplier<EnforcementCore<Request>> cores) {
    for (BiFunction<EnforcementCore<Request>, Request, EnforcementCore.Outcome> way :
        List.<BiFunction<EnforcementCore<Request>, Request, EnforcementCore.Outcome>>of(
            PlanCostTest::sync, PlanCostTest::async)) {
      EnforcementCore<Request> core = cores.get();
      for (int i = 0; i < 3; i++) {
        EnforcementCore.Outcome outcome = way.apply(core, new Request("on-free", "192.0.2.7", 50));
        assertThat(outcome.refusal()).as("attempt %d", i).isNotNull();
        assertThat(outcome.refusal().status()).isEqualTo(429);
        assertThat(outcome.refused().limit()).isEqualTo(FREE);
      }
      assertThat(way.apply(core, new Request("on-free", "192.0.2.7", 10)).refusal())
          .as("the plan's ten are all left")
          .isNull();
      assertThat(way.apply(core, new Request("other", "192.0.2.7", 100)).refusal())
          .as("nothing was counted under the client's address")
          .isNull();
    }
  }
}
