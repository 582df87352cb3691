package io.slidingwindow.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.slidingwindow.FailurePolicy;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Plan;
import io.slidingwindow.PlanResolver;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.testkit.FakeTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.cloud.gateway.event.FilterArgsEvent;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter.Response;
import org.springframework.cloud.gateway.support.ConfigurationService;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * A route's plans: each key's plan's limits, their headers, the fallback's plans and the checks.
 */
class SlidingWindowRatePlansTest {

  private static final Duration TIMEOUT = Duration.ofMillis(200);
  private static final Duration TEN_SECONDS = Duration.ofSeconds(10);
  private static final Duration EXACT = Duration.ofNanos(1);
  private static final String FREE_KEY = "header:x-api-key:free-1";
  private static final String PRO_KEY = "header:x-api-key:pro-1";

  private final FakeTicker ticker = new FakeTicker();
  private final VirtualTimeScheduler timer = VirtualTimeScheduler.create();
  private final Map<String, PlanResolver<?>> resolverBeans = new HashMap<>();
  private final List<String> created = new ArrayList<>();
  private final RateLimiterFactory inMemory =
      new RateLimiterFactory() {
        @Override
        public KeyedRateLimiter<String> create(
            String ruleName, List<Limit> limits, boolean countRefused) {
          return create(ruleName, limits, countRefused, null);
        }

        @Override
        public KeyedRateLimiter<String> create(
            String ruleName, List<Limit> limits, boolean countRefused, PlanResolver<String> plans) {
          created.add(ruleName);
          return RateLimiterFactory.inMemory(ticker, 1000)
              .create(ruleName, limits, countRefused, plans);
        }
      };

  private SlidingWindowRateLimiter limiter(FailurePolicy onFailure, RateLimiterFactory factory) {
    return SlidingWindowRateLimiter.builder()
        .factory(factory)
        .local(RateLimiterFactory.inMemory(ticker, 1000))
        .timeout(TIMEOUT)
        .onFailure(onFailure)
        .configurationService(
            new ConfigurationService(new DefaultListableBeanFactory(), () -> null, () -> null))
        .meterRegistry(new SimpleMeterRegistry())
        .timer(timer)
        .resolverBeans(resolverBeans::get)
        .build();
  }

  /** Route "api", exact windows: 2 per 10 s on no plan, free 5 per 10 s, pro 20 per 10 s. */
  private static SlidingWindowRateLimiter.Config plans() {
    return new SlidingWindowRateLimiter.Config()
        .limit(2, TEN_SECONDS, EXACT)
        .plan("free", 5, TEN_SECONDS, EXACT)
        .plan("pro", 20, TEN_SECONDS, EXACT)
        .planKeys("free", FREE_KEY)
        .planKeys("pro", PRO_KEY);
  }

  private static int granted(SlidingWindowRateLimiter limiter, String route, String key, int n) {
    int granted = 0;
    for (int i = 0; i < n; i++) {
      granted += decide(limiter, route, key).isAllowed() ? 1 : 0;
    }
    return granted;
  }

  private static Response decide(SlidingWindowRateLimiter limiter, String route, String key) {
    return limiter.isAllowed(route, key).block(Duration.ofSeconds(5));
  }

  @Test
  void isAllowed_keysOnPlans_getTheirPlansLimitsAndOthersTheRoutes() {
    SlidingWindowRateLimiter limiter = limiter(FailurePolicy.ALLOW, inMemory);
    limiter.getConfig().put("api", plans());
    limiter.getConfig().put("plain", new SlidingWindowRateLimiter.Config().limit(3, TEN_SECONDS));

    assertThat(granted(limiter, "api", FREE_KEY, 8)).isEqualTo(5);
    assertThat(granted(limiter, "api", PRO_KEY, 25)).isEqualTo(20);
    assertThat(granted(limiter, "api", "header:x-api-key:other", 5)).isEqualTo(2);
    assertThat(granted(limiter, "plain", PRO_KEY, 5)).as("a route without plans").isEqualTo(3);
    ticker.advance(TEN_SECONDS);
    assertThat(granted(limiter, "api", FREE_KEY, 8)).as("a window later").isEqualTo(5);
  }

  @Test
  void isAllowed_keyOnAPlan_isToldItsPlansLimitNamedByTheRoute() {
    SlidingWindowRateLimiter limiter = limiter(FailurePolicy.ALLOW, inMemory);
    limiter.getConfig().put("api", plans());

    Response free = decide(limiter, "api", FREE_KEY);
    Response other = decide(limiter, "api", "ip:192.0.2.7");
    granted(limiter, "api", FREE_KEY, 4);
    Response refused = decide(limiter, "api", FREE_KEY);

    assertThat(free.getHeaders())
        .containsEntry("RateLimit-Policy", "\"api\";q=5;w=10")
        .containsEntry("RateLimit", "\"api\";r=4;t=10");
    assertThat(other.getHeaders()).containsEntry("RateLimit-Policy", "\"api\";q=2;w=10");
    assertThat(refused.isAllowed()).isFalse();
    assertThat(refused.getHeaders())
        .containsEntry("RateLimit-Policy", "\"api\";q=5;w=10")
        .containsEntry("Retry-After", "10");
  }

  @Test
  void isAllowed_planLimitEqualToOneOfTheRoutes_isToldThePlanNotTheRoutesLimits() {
    SlidingWindowRateLimiter limiter = limiter(FailurePolicy.ALLOW, inMemory);
    limiter
        .getConfig()
        .put(
            "api",
            new SlidingWindowRateLimiter.Config()
                .limit(5, TEN_SECONDS, EXACT)
                .limit(100, Duration.ofSeconds(60), EXACT)
                .plan("free", 5, TEN_SECONDS, EXACT)
                .planKeys("free", FREE_KEY));

    Response free = decide(limiter, "api", FREE_KEY);
    Response other = decide(limiter, "api", PRO_KEY);

    assertThat(free.getHeaders())
        .containsEntry("RateLimit-Policy", "\"api\";q=5;w=10")
        .containsEntry("RateLimit", "\"api\";r=4;t=10");
    assertThat(other.getHeaders())
        .as("a key on no plan: the route's limits, as before")
        .containsEntry("RateLimit-Policy", "\"api-10s\";q=5;w=10, \"api-60s\";q=100;w=60")
        .containsEntry("RateLimit", "\"api-10s\";r=4;t=10");
  }

  @Test
  void isAllowed_resolverBean_isAskedFirstThenPlanKeys() {
    Plan gold = Plan.of("gold", Limit.of(7, TEN_SECONDS));
    resolverBeans.put("tenants", (PlanResolver<String>) key -> key.equals(FREE_KEY) ? gold : null);
    SlidingWindowRateLimiter limiter = limiter(FailurePolicy.ALLOW, inMemory);
    SlidingWindowRateLimiter.Config config = plans();
    config.setPlanResolver("tenants");
    limiter.getConfig().put("api", config);

    assertThat(granted(limiter, "api", FREE_KEY, 10)).as("the bean's plan first").isEqualTo(7);
    assertThat(granted(limiter, "api", PRO_KEY, 25)).as("then plan-keys").isEqualTo(20);
  }

  /** A backend that never answers: the default policy decides in memory, on the keys' plans. */
  @Test
  void isAllowed_backendLate_localPolicyHonoursPlans() {
    RateLimiterFactory never =
        new RateLimiterFactory() {
          @Override
          public KeyedRateLimiter<String> create(String rule, List<Limit> limits, boolean c) {
            throw new AssertionError("plans must reach the backend");
          }

          @Override
          public KeyedRateLimiter<String> create(
              String rule, List<Limit> limits, boolean c, PlanResolver<String> plans) {
            return new NeverAnswers(limits);
          }
        };
    SlidingWindowRateLimiter limiter = limiter(FailurePolicy.LOCAL, never);
    limiter.getConfig().put("api", plans());
    int granted = 0;

    for (int i = 0; i < 25; i++) {
      List<Response> answer = new ArrayList<>();
      StepVerifier.create(limiter.isAllowed("api", PRO_KEY))
          .then(() -> timer.advanceTimeBy(TIMEOUT))
          .consumeNextWith(answer::add)
          .verifyComplete();
      granted += answer.get(0).isAllowed() ? 1 : 0;
    }

    assertThat(granted).isEqualTo(20);
  }

  @Test
  void onApplicationEvent_samePlansRebound_keepCountsAndChangedPlansStartAnew() {
    SlidingWindowRateLimiter limiter = limiter(FailurePolicy.ALLOW, inMemory);
    Map<String, Object> args = new HashMap<>(args());
    limiter.onApplicationEvent(new FilterArgsEvent(this, "api", args));
    assertThat(granted(limiter, "api", FREE_KEY, 5)).isEqualTo(5);

    limiter.onApplicationEvent(new FilterArgsEvent(this, "api", args));
    assertThat(granted(limiter, "api", FREE_KEY, 1)).as("same plans: same counts").isZero();

    args.put("sliding-window-rate-limiter.plans.free.limits[0].permits", "6");
    limiter.onApplicationEvent(new FilterArgsEvent(this, "api", args));
    assertThat(granted(limiter, "api", FREE_KEY, 8)).as("new plans: new limiter").isEqualTo(6);
    assertThat(created).containsExactly("gateway.api", "gateway.api");
  }

  /** The gateway's properties flatten a YAML list of keys to {@code plan-keys.free.0}. */
  @Test
  void onApplicationEvent_keysWrittenAsNameElements_bindToTheirPlan() {
    SlidingWindowRateLimiter limiter = limiter(FailurePolicy.ALLOW, inMemory);
    Map<String, Object> args = new HashMap<>(args());
    args.remove("sliding-window-rate-limiter.plan-keys.free[0]");
    args.put("sliding-window-rate-limiter.plan-keys.free.0", "k0");
    args.put("sliding-window-rate-limiter.plan-keys.free.1", FREE_KEY);

    limiter.onApplicationEvent(new FilterArgsEvent(this, "api", args));

    assertThat(granted(limiter, "api", FREE_KEY, 8)).isEqualTo(5);
    assertThat(granted(limiter, "api", "k0", 8)).isEqualTo(5);
  }

  @Test
  void onApplicationEvent_badPlans_failNamingTheArgument() {
    assertBad(
        Map.of("sliding-window-rate-limiter.plan-keys.gold[0]", "k"),
        "route api: sliding-window-rate-limiter.plan-keys.gold: no plan named 'gold' in"
            + " sliding-window-rate-limiter.plans [free, pro]");
    assertBad(
        Map.of("sliding-window-rate-limiter.plans.team.limits", ""),
        "route api: sliding-window-rate-limiter.plans.team.limits: a plan needs at least one"
            + " limit");
    assertBad(
        Map.of(
            "sliding-window-rate-limiter.plans.team.limits[0].permits", "0",
            "sliding-window-rate-limiter.plans.team.limits[0].window", "10s"),
        "route api: sliding-window-rate-limiter.plans.team.limits[0].permits: ");
    assertBad(
        Map.of("sliding-window-rate-limiter.plan-resolver", "nosuch"),
        "route api: sliding-window-rate-limiter.plan-resolver: no PlanResolver bean named"
            + " 'nosuch'");
  }

  @Test
  void onApplicationEvent_keyOnTwoPlans_failsNamingTheKey() {
    SlidingWindowRateLimiter limiter = limiter(FailurePolicy.ALLOW, inMemory);
    Map<String, Object> args = new HashMap<>(args());
    args.put("sliding-window-rate-limiter.plan-keys.pro[0]", FREE_KEY);

    assertThatThrownBy(() -> limiter.onApplicationEvent(new FilterArgsEvent(this, "api", args)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sliding-window-rate-limiter.plan-keys.")
        .hasMessageContaining("key '" + FREE_KEY + "' is on plan '");
  }

  @Test
  void onApplicationEvent_backendWithoutPlans_failsNamingThePlansArgument() {
    RateLimiterFactory withoutPlans =
        (rule, limits, countRefused) -> KeyedRateLimiter.builder().limits(limits).build();
    SlidingWindowRateLimiter limiter = limiter(FailurePolicy.ALLOW, withoutPlans);

    assertThatThrownBy(() -> limiter.onApplicationEvent(new FilterArgsEvent(this, "api", args())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("route api: sliding-window-rate-limiter.plans: ")
        .hasMessageContaining("cannot give keys plans");
  }

  /** The filter arguments of {@link #plans()}, as the gateway hands them over. */
  private static Map<String, Object> args() {
    Map<String, Object> args = new HashMap<>();
    args.put("sliding-window-rate-limiter.limits[0].permits", "2");
    args.put("sliding-window-rate-limiter.limits[0].window", "10s");
    args.put("sliding-window-rate-limiter.plans.free.limits[0].permits", "5");
    args.put("sliding-window-rate-limiter.plans.free.limits[0].window", "10s");
    args.put("sliding-window-rate-limiter.plans.pro.limits[0].permits", "20");
    args.put("sliding-window-rate-limiter.plans.pro.limits[0].window", "10s");
    args.put("sliding-window-rate-limiter.plan-keys.free[0]", FREE_KEY);
    args.put("sliding-window-rate-limiter.plan-keys.pro[0]", PRO_KEY);
    return args;
  }

  /** The arguments of {@link #args()} with {@code changes} fail naming {@code message}. */
  private void assertBad(Map<String, Object> changes, String message) {
    SlidingWindowRateLimiter limiter = limiter(FailurePolicy.ALLOW, inMemory);
    Map<String, Object> args = new HashMap<>(args());
    args.putAll(changes);

    assertThatThrownBy(() -> limiter.onApplicationEvent(new FilterArgsEvent(this, "api", args)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(message);
    assertThat(limiter.getConfig()).containsKey("api");
    assertThat(created).isEmpty();
  }

  /** A limiter whose decisions never come. */
  private record NeverAnswers(List<Limit> limits) implements KeyedRateLimiter<String> {
    @Override
    public boolean tryAcquire(String key, long permits) {
      throw new AssertionError("not used");
    }

    @Override
    public io.slidingwindow.Decision decide(String key, long permits) {
      throw new AssertionError("not used");
    }

    @Override
    public CompletionStage<io.slidingwindow.Decision> decideAsync(String key, long permits) {
      return new CompletableFuture<>();
    }
  }
}
