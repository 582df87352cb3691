package io.slidingwindow.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.slidingwindow.Decision;
import io.slidingwindow.FailurePolicy;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.LimiterKeys;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.testkit.FakeTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.cloud.gateway.event.FilterArgsEvent;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter.Response;
import org.springframework.cloud.gateway.support.ConfigurationService;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

class SlidingWindowRateLimiterTest {

  private static final Duration TIMEOUT = Duration.ofMillis(200);
  private static final Duration EXACT = Duration.ofNanos(1);

  private final FakeTicker ticker = new FakeTicker();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final VirtualTimeScheduler timer = VirtualTimeScheduler.create();
  private final List<String> ruleNames = new ArrayList<>();
  private final RateLimiterFactory inMemory =
      (ruleName, limits, countRefused) -> {
        ruleNames.add(ruleName);
        return RateLimiterFactory.inMemory(ticker, 1000).create(ruleName, limits, countRefused);
      };

  private SlidingWindowRateLimiter limiter(
      FailurePolicy onFailure, boolean headers, RateLimiterFactory factory) {
    return SlidingWindowRateLimiter.builder()
        .factory(factory)
        .local(RateLimiterFactory.inMemory(ticker, 1000))
        .timeout(TIMEOUT)
        .onFailure(onFailure)
        .headers(headers)
        .meterRegistry(registry)
        .timer(timer)
        .build();
  }

  private SlidingWindowRateLimiter limiter() {
    return limiter(FailurePolicy.ALLOW, true, inMemory);
  }

  /** A backend whose limiters answer through {@code answer}, which may never complete. */
  private static RateLimiterFactory answering(
      Function<String, CompletableFuture<Decision>> answer) {
    return (ruleName, limits, countRefused) ->
        new KeyedRateLimiter<>() {
          @Override
          public boolean tryAcquire(String key, long permits) {
            throw new AssertionError("not used");
          }

          @Override
          public Decision decide(String key, long permits) {
            throw new AssertionError("not used");
          }

          @Override
          public CompletionStage<Decision> decideAsync(String key, long permits) {
            return answer.apply(key);
          }

          @Override
          public List<Limit> limits() {
            return limits;
          }
        };
  }

  private static Response decide(SlidingWindowRateLimiter limiter, String route, String key) {
    return limiter.isAllowed(route, key).block(Duration.ofSeconds(5));
  }

  @Test
  void isAllowed_withinLimit_grantsThenRefusesWithHeaders() {
    SlidingWindowRateLimiter limiter = limiter();
    limiter.getConfig().put("orders", config(2, sec(10)));

    Response first = decide(limiter, "orders", "alice");
    ticker.advance(Duration.ofSeconds(3));
    Response second = decide(limiter, "orders", "alice");
    ticker.advance(Duration.ofSeconds(3));
    Response third = decide(limiter, "orders", "alice");

    assertThat(first.isAllowed()).isTrue();
    assertThat(first.getHeaders())
        .containsEntry("RateLimit-Policy", "\"orders\";q=2;w=10")
        .containsEntry("RateLimit", "\"orders\";r=1;t=10")
        .doesNotContainKey("Retry-After");
    assertThat(second.isAllowed()).isTrue();
    assertThat(second.getHeaders()).containsEntry("RateLimit", "\"orders\";r=0;t=10");
    assertThat(third.isAllowed()).isFalse();
    // The first grant leaves the window 10 s after it was made: 4 s from now.
    assertThat(third.getHeaders())
        .containsEntry("Retry-After", "4")
        .containsEntry("RateLimit", "\"orders\";r=0;t=4")
        .containsEntry("RateLimit-Policy", "\"orders\";q=2;w=10");
  }

  @Test
  void isAllowed_afterRetryAfter_grantsAgain() {
    SlidingWindowRateLimiter limiter = limiter();
    limiter.getConfig().put("orders", config(1, sec(10)));
    assertThat(decide(limiter, "orders", "alice").isAllowed()).isTrue();

    ticker.advance(Duration.ofSeconds(10).minusMillis(20));
    assertThat(decide(limiter, "orders", "alice").isAllowed()).isFalse();
    ticker.advance(Duration.ofMillis(20));
    assertThat(decide(limiter, "orders", "alice").isAllowed()).isTrue();
  }

  @Test
  void isAllowed_burstAtWindowEdge_neverGrantsMoreThanPermitsInAnyWindow() {
    // A fixed window or token bucket would grant 2N around the edge; the sliding window grants N.
    SlidingWindowRateLimiter limiter = limiter();
    limiter.getConfig().put("r", config(5, sec(1)));
    ticker.advance(Duration.ofMillis(900));
    int granted = 0;
    for (int i = 0; i < 5; i++) {
      granted += decide(limiter, "r", "k").isAllowed() ? 1 : 0;
    }
    ticker.advance(Duration.ofMillis(200)); // past a whole-second boundary
    for (int i = 0; i < 5; i++) {
      granted += decide(limiter, "r", "k").isAllowed() ? 1 : 0;
    }
    assertThat(granted).isEqualTo(5);
  }

  @Test
  void isAllowed_differentKeysAndRoutes_areIndependent() {
    SlidingWindowRateLimiter limiter = limiter();
    limiter.getConfig().put("a", config(1, sec(10)));
    limiter.getConfig().put("b", config(1, sec(10)));

    assertThat(decide(limiter, "a", "alice").isAllowed()).isTrue();
    assertThat(decide(limiter, "a", "alice").isAllowed()).isFalse();
    assertThat(decide(limiter, "a", "bob").isAllowed()).isTrue();
    assertThat(decide(limiter, "b", "alice").isAllowed()).isTrue();
    assertThat(ruleNames).containsExactly("gateway.a", "gateway.b");
  }

  @Test
  void isAllowed_severalLimits_reportsEveryPolicyAndTheBindingOne() {
    SlidingWindowRateLimiter limiter = limiter();
    limiter.getConfig().put("api", config(2, sec(1)).limit(3, sec(60), EXACT));

    Response first = decide(limiter, "api", "k");
    decide(limiter, "api", "k");
    Response third = decide(limiter, "api", "k");
    ticker.advance(Duration.ofSeconds(1));
    Response fourth = decide(limiter, "api", "k");
    Response fifth = decide(limiter, "api", "k");

    assertThat(first.getHeaders())
        .containsEntry("RateLimit-Policy", "\"api-1s\";q=2;w=1, \"api-60s\";q=3;w=60")
        .containsEntry("RateLimit", "\"api-1s\";r=1;t=1");
    assertThat(third.isAllowed()).isFalse();
    assertThat(third.getHeaders()).containsEntry("Retry-After", "1");
    assertThat(fourth.isAllowed()).isTrue();
    assertThat(fourth.getHeaders()).containsEntry("RateLimit", "\"api-60s\";r=0;t=60");
    assertThat(fifth.isAllowed()).isFalse();
    assertThat(fifth.getHeaders()).containsEntry("Retry-After", "59");
  }

  @Test
  void isAllowed_headersOff_sendsOnlyRetryAfterOnRefusal() {
    SlidingWindowRateLimiter limiter = limiter(FailurePolicy.ALLOW, false, inMemory);
    limiter.getConfig().put("r", config(1, sec(10)));

    assertThat(decide(limiter, "r", "k").getHeaders()).isEmpty();
    assertThat(decide(limiter, "r", "k").getHeaders()).isEqualTo(Map.of("Retry-After", "10"));
  }

  @Test
  void isAllowed_routeWithoutArguments_usesTheDefaultFilters() {
    SlidingWindowRateLimiter limiter = limiter();
    limiter.getConfig().put(SlidingWindowRateLimiter.DEFAULT_FILTERS, config(1, sec(10)));

    assertThat(decide(limiter, "any", "k").isAllowed()).isTrue();
    assertThat(decide(limiter, "any", "k").isAllowed()).isFalse();
  }

  @Test
  void isAllowed_noConfiguration_failsNamingTheRoute() {
    SlidingWindowRateLimiter limiter = limiter();

    assertThatThrownBy(() -> decide(limiter, "orders", "k"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("route orders has no sliding-window-rate-limiter arguments");
  }

  @Test
  void isAllowed_sameLimitsRebound_keepsCounts() {
    SlidingWindowRateLimiter limiter = limiter();
    limiter.getConfig().put("r", config(1, sec(10)));
    assertThat(decide(limiter, "r", "k").isAllowed()).isTrue();

    limiter.getConfig().put("r", config(1, sec(10)));
    assertThat(decide(limiter, "r", "k").isAllowed()).isFalse();

    limiter.getConfig().put("r", config(2, sec(10)));
    assertThat(decide(limiter, "r", "k").isAllowed()).isTrue();
    assertThat(ruleNames).containsExactly("gateway.r", "gateway.r");
  }

  @Test
  void isAllowed_decisionLaterThanTimeout_refusePolicyAnswersAtTheTimeout() {
    CompletableFuture<Decision> never = new CompletableFuture<>();
    SlidingWindowRateLimiter limiter = limiter(FailurePolicy.REFUSE, true, answering(key -> never));
    limiter.getConfig().put("r", config(1, sec(10)));

    StepVerifier.create(limiter.isAllowed("r", "k"))
        .then(() -> timer.advanceTimeBy(TIMEOUT.minusMillis(1)))
        .expectNoEvent(Duration.ZERO)
        .then(() -> timer.advanceTimeBy(Duration.ofMillis(1)))
        .assertNext(
            response -> {
              assertThat(response.isAllowed()).isFalse();
              assertThat(response.getHeaders()).isEqualTo(Map.of("Retry-After", "1"));
            })
        .verifyComplete();
    assertThat(failures("r", "timeout", "refused")).isEqualTo(1);
  }

  @Test
  void isAllowed_decisionLaterThanTimeout_allowPolicyLetsThroughAndCounts() {
    SlidingWindowRateLimiter limiter =
        limiter(FailurePolicy.ALLOW, true, answering(key -> new CompletableFuture<>()));
    limiter.getConfig().put("r", config(1, sec(10)));

    for (int i = 0; i < 2; i++) {
      StepVerifier.create(limiter.isAllowed("r", "k"))
          .then(() -> timer.advanceTimeBy(TIMEOUT))
          .assertNext(
              response -> {
                assertThat(response.isAllowed()).isTrue();
                assertThat(response.getHeaders()).isEmpty();
              })
          .verifyComplete();
    }
    assertThat(failures("r", "timeout", "allowed")).isEqualTo(2);
  }

  /** The default policy decides late decisions in memory, with the route's limits. */
  @Test
  void isAllowed_decisionLaterThanTimeout_localPolicyDecidesInMemory() {
    SlidingWindowRateLimiter limiter =
        limiter(FailurePolicy.DEFAULT, true, answering(key -> new CompletableFuture<>()));
    limiter.getConfig().put("r", config(1, sec(10)));
    List<Response> responses = new ArrayList<>();

    for (int i = 0; i < 2; i++) {
      StepVerifier.create(limiter.isAllowed("r", "k"))
          .then(() -> timer.advanceTimeBy(TIMEOUT))
          .consumeNextWith(responses::add)
          .verifyComplete();
    }

    assertThat(responses.get(0).isAllowed()).isTrue();
    assertThat(responses.get(1).isAllowed()).as("the local window holds one").isFalse();
    assertThat(responses.get(1).getHeaders()).containsKeys("RateLimit", "Retry-After");
    assertThat(failures("r", "timeout", "allowed")).isEqualTo(1);
    assertThat(failures("r", "timeout", "refused")).isEqualTo(1);
  }

  @Test
  void isAllowed_limiterThrows_policyAnswersAndCountsAnError() {
    SlidingWindowRateLimiter limiter =
        limiter(
            FailurePolicy.REFUSE,
            true,
            answering(
                key -> {
                  throw new IllegalStateException("backend down");
                }));
    limiter.getConfig().put("r", config(1, sec(10)));

    Response response = decide(limiter, "r", "k");

    assertThat(response.isAllowed()).isFalse();
    assertThat(failures("r", "error", "refused")).isEqualTo(1);
  }

  /** An invalid key is never a backend failure: no policy turns it into a grant. */
  @Test
  void isAllowed_limiterRejectsTheKey_refusedWhateverThePolicy() {
    for (FailurePolicy policy : FailurePolicy.values()) {
      SlidingWindowRateLimiter atOnce =
          limiter(
              policy,
              true,
              answering(
                  key -> {
                    throw new IllegalArgumentException("key must take at most 1024 bytes");
                  }));
      SlidingWindowRateLimiter later =
          limiter(
              policy,
              true,
              answering(
                  key -> CompletableFuture.failedFuture(new IllegalArgumentException("bad key"))));
      atOnce.getConfig().put("r", config(1, sec(10)));
      later.getConfig().put("r", config(1, sec(10)));

      assertThat(decide(atOnce, "r", "k").isAllowed()).as(policy.name()).isFalse();
      assertThat(decide(later, "r", "k").isAllowed()).as(policy.name()).isFalse();
    }
    assertThat(failures("r", "invalid-key", "refused")).isEqualTo(6);
  }

  /** A key of 1,100 characters is stored as its digest: bounded, and limited like any other. */
  @Test
  void isAllowed_longKey_isBoundedAndLimited() {
    List<String> seen = new ArrayList<>();
    RateLimiterFactory recording =
        (ruleName, limits, countRefused) -> {
          KeyedRateLimiter<String> inner = inMemory.create(ruleName, limits, countRefused);
          return new KeyedRateLimiter<>() {
            @Override
            public boolean tryAcquire(String key, long permits) {
              throw new AssertionError("not used");
            }

            @Override
            public Decision decide(String key, long permits) {
              seen.add(key);
              return inner.decide(key, permits);
            }

            @Override
            public List<Limit> limits() {
              return limits;
            }
          };
        };
    SlidingWindowRateLimiter limiter = limiter(FailurePolicy.ALLOW, true, recording);
    limiter.getConfig().put("r", config(5, sec(10)));
    String longKey = "k".repeat(1_100);

    int granted = 0;
    for (int i = 0; i < 12; i++) {
      granted += decide(limiter, "r", longKey).isAllowed() ? 1 : 0;
    }

    assertThat(granted).isEqualTo(5);
    assertThat(seen).allMatch(key -> key.equals(LimiterKeys.bounded(longKey)));
    assertThat(seen.get(0)).hasSizeLessThanOrEqualTo(LimiterKeys.MAX_CHARS);
  }

  @Test
  void isAllowed_tableFull_countsTheOverflow() {
    SlidingWindowRateLimiter limiter =
        limiter(
            FailurePolicy.ALLOW,
            true,
            (ruleName, limits, countRefused) ->
                RateLimiterFactory.inMemory(ticker, 2).create(ruleName, limits, countRefused));
    limiter.getConfig().put("r", config(1, sec(10)));

    decide(limiter, "r", "a");
    decide(limiter, "r", "b");
    Response third = decide(limiter, "r", "c");

    assertThat(third.isAllowed()).isFalse();
    assertThat(registry.get(FailureReport.KEY_OVERFLOWS).tag("route", "r").counter().count())
        .isEqualTo(1);
  }

  @Test
  void failureReport_limiterAnsweringByItsOwnPolicy_isCountedAsDegraded() {
    FailureReport report = new FailureReport(registry);

    report.decided("r", true);
    report.decided("r", true);
    report.decided("r", false);

    var degraded = registry.find(FailureReport.DEGRADED).tag("route", "r").counter();
    assertThat(degraded).isNotNull();
    assertThat(degraded.count()).isEqualTo(2);
  }

  @Test
  void onApplicationEvent_routeArguments_bindLimitsWithDurations() {
    SlidingWindowRateLimiter limiter =
        SlidingWindowRateLimiter.builder()
            .factory(inMemory)
            .timeout(TIMEOUT)
            .onFailure(FailurePolicy.ALLOW)
            .configurationService(
                new ConfigurationService(new DefaultListableBeanFactory(), () -> null, () -> null))
            .meterRegistry(registry)
            .build();

    limiter.onApplicationEvent(
        new FilterArgsEvent(
            this,
            "orders",
            Map.of(
                "sliding-window-rate-limiter.limits[0].permits", "1",
                "sliding-window-rate-limiter.limits[0].window", "10s",
                "sliding-window-rate-limiter.limits[1].permits", "5",
                "sliding-window-rate-limiter.limits[1].window", "1m",
                "sliding-window-rate-limiter.limits[1].precision", "1s")));

    assertThat(ruleNames).containsExactly("gateway.orders");
    Response response = decide(limiter, "orders", "k");
    assertThat(response.getHeaders())
        .containsEntry("RateLimit-Policy", "\"orders-10s\";q=1;w=10, \"orders-60s\";q=5;w=60");
  }

  @Test
  void onApplicationEvent_badLimit_failsNamingTheArgument() {
    SlidingWindowRateLimiter limiter =
        SlidingWindowRateLimiter.builder()
            .factory(inMemory)
            .timeout(TIMEOUT)
            .onFailure(FailurePolicy.ALLOW)
            .configurationService(
                new ConfigurationService(new DefaultListableBeanFactory(), () -> null, () -> null))
            .meterRegistry(registry)
            .build();

    assertThatThrownBy(
            () ->
                limiter.onApplicationEvent(
                    new FilterArgsEvent(
                        this,
                        "orders",
                        Map.of(
                            "sliding-window-rate-limiter.limits[0].permits", "0",
                            "sliding-window-rate-limiter.limits[0].window", "10s"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("route orders: sliding-window-rate-limiter.limits[0].permits: ");
    assertThatThrownBy(
            () ->
                limiter.onApplicationEvent(
                    new FilterArgsEvent(
                        this,
                        "orders",
                        Map.of(
                            "sliding-window-rate-limiter.limits[0].permits", "3",
                            "sliding-window-rate-limiter.limits[0].window", "1s",
                            "sliding-window-rate-limiter.limits[0].precision", "2s"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("route orders: sliding-window-rate-limiter.limits[0].precision: ");
  }

  private double failures(String route, String cause, String answer) {
    var counter =
        registry
            .find(FailureReport.FAILURES)
            .tag("route", route)
            .tag("cause", cause)
            .tag("answer", answer)
            .counter();
    return counter == null ? 0 : counter.count();
  }

  /** A configuration of one exact limit, whose figures are whole seconds. */
  private static SlidingWindowRateLimiter.Config config(long permits, Duration window) {
    return new SlidingWindowRateLimiter.Config().limit(permits, window, EXACT);
  }

  private static Duration sec(long seconds) {
    return Duration.ofSeconds(seconds);
  }
}
