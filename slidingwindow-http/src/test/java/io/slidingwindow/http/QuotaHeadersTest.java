package io.slidingwindow.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Decision;
import io.slidingwindow.Limit;
import io.slidingwindow.Plan;
import io.slidingwindow.PlanResolver;
import io.slidingwindow.testkit.FakeTicker;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class QuotaHeadersTest {

  private static final Limit SHORT = Limit.of(5, Duration.ofSeconds(2));
  private static final Limit LONG = Limit.of(20, Duration.ofSeconds(10));
  private static final List<Limit> BOTH = List.of(SHORT, LONG);
  private static final Plan FREE = Plan.of("free", SHORT);

  private final FakeTicker ticker = new FakeTicker();

  /** An in-memory backend whose custom keys named in {@code plans} are on those plans. */
  private RateLimiterFactory plannedFactory(Map<String, Plan> plans) {
    Map<String, Plan> byKey = new HashMap<>();
    plans.forEach((key, plan) -> byKey.put(RequestKey.custom(key).value(), plan));
    RateLimiterFactory memory = RateLimiterFactory.inMemory(ticker, 100, 100);
    return (name, limits, countRefused) ->
        memory.create(name, limits, countRefused, PlanResolver.of(byKey));
  }

  /** A core with {@code rule} keyed by the request's text, headers on, keys on {@code plans}. */
  private EnforcementCore<String> planned(HttpRule rule, Map<String, Plan> plans) {
    return EnforcementCore.<String>builder()
        .limiterFactory(plannedFactory(plans))
        .rateLimitHeaders(true)
        .rule(rule, RequestKey::custom)
        .build();
  }

  @Test
  void headers_noDecision_areEmpty() {
    assertThat(new QuotaHeaders().headers()).isEmpty();
  }

  @Test
  void headers_grantOnSeveralLimits_listEveryPolicyAndTheBindingItem() {
    QuotaHeaders headers = new QuotaHeaders();
    headers.add(
        BOTH,
        QuotaHeaders.policyNames("product", BOTH),
        Decision.granted(3, Duration.ofMillis(1_500), SHORT));

    assertThat(headers.headers())
        .containsExactly(
            Map.entry(
                QuotaHeaders.RATE_LIMIT_POLICY,
                "\"product-2s\";q=5;w=2, \"product-10s\";q=20;w=10"),
            Map.entry(QuotaHeaders.RATE_LIMIT, "\"product-2s\";r=3;t=2"));
  }

  @Test
  void addOnPlan_planLimitEqualToARulesLimit_tellsThePlansLimitAloneByTheRulesName() {
    QuotaHeaders headers = new QuotaHeaders();
    headers.addOnPlan("product", Decision.granted(4, Duration.ofMillis(1_500), SHORT));

    assertThat(headers.headers())
        .containsExactly(
            Map.entry(QuotaHeaders.RATE_LIMIT_POLICY, "\"product\";q=5;w=2"),
            Map.entry(QuotaHeaders.RATE_LIMIT, "\"product\";r=4;t=2"));
  }

  @Test
  void enforce_keyOnPlanWhoseLimitEqualsOneOfTheRules_tellsThePlanNotTheRule() {
    EnforcementCore<String> core =
        planned(HttpRule.builder("product").limit(SHORT).limit(LONG).build(), Map.of("free", FREE));

    EnforcementCore.Outcome sync = core.enforce("free", "GET", List.of("/a"), QuotaHeaders::new);
    EnforcementCore.Outcome async =
        core.enforceAsync("free", "GET", List.of("/a"), QuotaHeaders::new)
            .toCompletableFuture()
            .join();

    assertThat(sync.headers())
        .containsExactly(
            Map.entry(QuotaHeaders.RATE_LIMIT_POLICY, "\"product\";q=5;w=2"),
            Map.entry(QuotaHeaders.RATE_LIMIT, "\"product\";r=4;t=3"));
    assertThat(async.headers())
        .containsExactly(
            Map.entry(QuotaHeaders.RATE_LIMIT_POLICY, "\"product\";q=5;w=2"),
            Map.entry(QuotaHeaders.RATE_LIMIT, "\"product\";r=3;t=3"));
    assertThat(core.enforce("none", "GET", List.of("/a"), QuotaHeaders::new).headers())
        .as("a key on no plan is told the rule's limits, as before")
        .containsExactly(
            Map.entry(
                QuotaHeaders.RATE_LIMIT_POLICY,
                "\"product-2s\";q=5;w=2, \"product-10s\";q=20;w=10"),
            Map.entry(QuotaHeaders.RATE_LIMIT, "\"product-2s\";r=4;t=3"));
  }

  @Test
  void enforce_planLimitRunOutWithAGrantThenLaterRuleRefuses_retryAfterBoundsThePlansLimits() {
    // The plan's 1 per 60 s runs out with the same grant as its 1 per 2 s, which the decision
    // reports; the bound must know the plan's 60 s window, not the rule's own 2 s one.
    Plan pro =
        Plan.of("pro", Limit.of(1, Duration.ofSeconds(2)), Limit.of(1, Duration.ofSeconds(60)));
    EnforcementCore<String> core =
        EnforcementCore.<String>builder()
            .limiterFactory(plannedFactory(Map.of("pro", pro)))
            .rule(
                HttpRule.builder("site")
                    .methods("GET")
                    .limit(Limit.of(10, Duration.ofSeconds(2)))
                    .build(),
                RequestKey::custom)
            .rule(
                HttpRule.builder("all").limit(Limit.of(1, Duration.ofSeconds(1))).build(),
                k -> RequestKey.global())
            .build();
    assertThat(core.enforce("pro", "POST", List.of("/a"), QuotaHeaders::new).allowed()).isTrue();

    EnforcementCore.Outcome refused = core.enforce("pro", "GET", List.of("/a"), QuotaHeaders::new);

    assertThat(refused.allowed()).isFalse();
    assertThat(refused.refusal().headers()).containsEntry(QuotaHeaders.RETRY_AFTER, "61");
  }

  @Test
  void headers_onRefusal_leaveOutTExceedingRetryAfter() {
    Limit one = Limit.of(1, Duration.ofSeconds(60));
    QuotaHeaders headers = new QuotaHeaders();
    headers.add(List.of(one), List.of("site"), Decision.granted(0, Duration.ofSeconds(60), one));
    headers.add(
        List.of(SHORT),
        List.of("x"),
        Decision.refused(0, Duration.ofMillis(300), Duration.ofSeconds(2), SHORT));

    assertThat(headers.headers(1).get(QuotaHeaders.RATE_LIMIT))
        .isEqualTo("\"site\";r=0, \"x\";r=0;t=1");
  }

  @Test
  void retryAfterSeconds_afterEnforcingGrantThatLeftNoPermit_isRaisedToItsBound() {
    QuotaHeaders headers = new QuotaHeaders();
    headers.granted(BOTH, Decision.granted(0, Duration.ofMillis(1_200), SHORT));

    // the other limit (10 s window, 10 ms precision) may have run out with the same request
    assertThat(headers.retryAfterSeconds(Duration.ofMillis(100))).isEqualTo(11);
  }

  @Test
  void retryAfterSeconds_afterGrantWithPermitsLeft_isTheRefusalsOwnWait() {
    QuotaHeaders headers = new QuotaHeaders();
    headers.granted(BOTH, Decision.granted(1, Duration.ofSeconds(9), SHORT));

    assertThat(headers.retryAfterSeconds(Duration.ofMillis(1_001))).isEqualTo(2);
  }

  @Test
  void nextPermitBoundNanos_singleLimit_isItsReset() {
    Decision grant = Decision.granted(0, Duration.ofMillis(700), SHORT);
    assertThat(QuotaHeaders.nextPermitBoundNanos(List.of(SHORT), grant))
        .isEqualTo(Duration.ofMillis(700).toNanos());
  }
}
