package io.slidingwindow.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Quota;
import io.slidingwindow.testkit.FailingLimiter;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.testkit.SlidingLogOracle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import org.junit.jupiter.api.Test;

/** Rules that count only some statuses: reserve before, settle after, on the core. */
class CountStatusesCoreTest {

  private static final Limit THREE_PER_10S = Limit.parse("3/10s");
  private static final List<String> PATHS = List.of("/login");

  private final FakeTicker ticker = new FakeTicker();
  private final List<String> errors = new ArrayList<>();

  private EnforcementCore<String> core(RateLimiterFactory factory, HttpRule... rules) {
    EnforcementCore.Builder<String> builder =
        EnforcementCore.<String>builder()
            .limiterFactory(factory)
            .rateLimitHeaders(true)
            .listener(
                new RateLimitListener() {
                  @Override
                  public void onError(HttpRule rule, RuntimeException error) {
                    errors.add(rule.name() + ": " + error.getMessage());
                  }
                });
    for (HttpRule rule : rules) {
      builder.rule(rule, request -> RequestKey.custom(request));
    }
    return builder.build();
  }

  private EnforcementCore<String> core(HttpRule... rules) {
    return core(RateLimiterFactory.inMemory(ticker, 1000), rules);
  }

  private static HttpRule failures(String name) {
    return HttpRule.builder(name)
        .limit(THREE_PER_10S)
        .countStatuses(StatusRanges.parse("400-599"))
        .build();
  }

  private static EnforcementCore.Outcome call(EnforcementCore<String> core, String key) {
    return core.enforce(key, "POST", PATHS, QuotaHeaders::new);
  }

  @Test
  void settle_answersThatDoNotCount_giveTheirPermitsBack() {
    EnforcementCore<String> core = core(failures("logins"));

    for (int i = 0; i < 20; i++) {
      EnforcementCore.Outcome good = call(core, "ann");
      assertThat(good.allowed()).isTrue();
      assertThat(good.headers().get("RateLimit")).startsWith("\"logins\";r=2;");
      good.settlement().settle(200);
    }
    for (int i = 0; i < 3; i++) {
      call(core, "ann").settlement().settle(401);
    }

    EnforcementCore.Outcome refused = call(core, "ann");
    assertThat(refused.allowed()).isFalse();
    assertThat(refused.settlement().isEmpty()).isTrue();
    assertThat(call(core, "bob").allowed()).isTrue();
  }

  @Test
  void settle_twice_givesBackOnce() {
    EnforcementCore<String> core = core(failures("logins"));
    call(core, "ann").settlement().settle(401);
    call(core, "ann").settlement().settle(401);
    EnforcementCore.Outcome third = call(core, "ann");

    third.settlement().settle(200);
    third.settlement().settle(200);

    call(core, "ann").settlement().settle(500);
    assertThat(call(core, "ann").allowed()).isFalse();
  }

  @Test
  void unsettled_aRequestWhoseAnswerIsNeverKnown_staysCounted() {
    EnforcementCore<String> core = core(failures("logins"));
    for (int i = 0; i < 3; i++) {
      assertThat(call(core, "ann").allowed()).isTrue();
    }

    assertThat(call(core, "ann").allowed()).isFalse();
  }

  @Test
  void settlement_ofARuleThatCountsEverything_isEmptyAndCostsNothing() {
    HttpRule all = HttpRule.builder("all").limit(THREE_PER_10S).build();
    EnforcementCore<String> core = core(all);

    EnforcementCore.Outcome outcome = call(core, "ann");

    assertThat(outcome.settlement()).isSameAs(Settlement.none());
    for (int i = 0; i < 2; i++) {
      call(core, "ann");
    }
    assertThat(call(core, "ann").allowed()).isFalse();
  }

  @Test
  void refusalByALaterRule_carriesTheEarlierReservation_keptWhenSettledWithTheRefusal() {
    HttpRule tight = HttpRule.builder("tight").limit(Limit.parse("1/10s")).build();
    EnforcementCore<String> core = core(failures("logins"), tight);
    call(core, "ann").settlement().settle(200);

    for (int i = 0; i < 3; i++) {
      EnforcementCore.Outcome refused = call(core, "ann");
      assertThat(refused.allowed()).isFalse();
      assertThat(refused.refused().limit()).isEqualTo(Limit.parse("1/10s"));
      assertThat(refused.settlement().isEmpty()).isFalse();
      refused.settlement().settle(refused.refusal().status()); // 429 counts
    }

    EnforcementCore.Outcome byLogins = call(core, "ann");
    assertThat(byLogins.refused().limit()).isEqualTo(THREE_PER_10S);
    assertThat(byLogins.settlement().isEmpty()).isTrue();
  }

  @Test
  void settleAsync_givesBackWithoutFailing() throws Exception {
    EnforcementCore<String> core = core(failures("logins"));
    for (int i = 0; i < 5; i++) {
      EnforcementCore.Outcome outcome =
          core.enforceAsync("ann", "POST", PATHS, QuotaHeaders::new).toCompletableFuture().get();
      assertThat(outcome.allowed()).isTrue();
      outcome.settlement().settleAsync(204).toCompletableFuture().get();
    }
    for (int i = 0; i < 3; i++) {
      core.enforceAsync("ann", "POST", PATHS, QuotaHeaders::new)
          .toCompletableFuture()
          .get()
          .settlement()
          .settleAsync(403)
          .toCompletableFuture()
          .get();
    }

    assertThat(
            core.enforceAsync("ann", "POST", PATHS, QuotaHeaders::new)
                .toCompletableFuture()
                .get()
                .allowed())
        .isFalse();
  }

  @Test
  void settle_aRefundThatFails_isToldToTheListenerAndKeepsTheCount() {
    RateLimiterFactory failingRefunds =
        (name, limits, countRefused) -> {
          KeyedRateLimiter<String> inner =
              KeyedRateLimiter.builder().limits(limits).ticker(ticker).build();
          return new KeyedRateLimiter<>() {
            @Override
            public boolean tryAcquire(String key, long permits) {
              return inner.tryAcquire(key, permits);
            }

            @Override
            public Decision decide(String key, long permits) {
              return inner.decide(key, permits);
            }

            @Override
            public Quota refund(String key, long permits) {
              throw new IllegalStateException("the store is down");
            }

            @Override
            public CompletionStage<Quota> refundAsync(String key, long permits) {
              return CompletableFuture.failedFuture(new IllegalStateException("still down"));
            }

            @Override
            public List<Limit> limits() {
              return inner.limits();
            }
          };
        };
    EnforcementCore<String> core = core(failingRefunds, failures("logins"));

    call(core, "ann").settlement().settle(200);
    call(core, "ann").settlement().settleAsync(200).toCompletableFuture().join();
    call(core, "ann").settlement().settle(200);

    assertThat(errors)
        .containsExactly(
            "logins: the store is down", "logins: still down", "logins: the store is down");
    assertThat(call(core, "ann").allowed()).isFalse();
  }

  @Test
  void build_aLimiterThatCannotGivePermitsBack_isRejectedNamingTheRule() {
    RateLimiterFactory own = (name, limits, countRefused) -> new FailingLimiter();

    assertThatThrownBy(() -> core(own, failures("logins")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("countStatuses: rule 'logins' counts only some statuses")
        .hasMessageContaining(FailingLimiter.class.getName());
    assertThat(core(own, HttpRule.builder("all").limit(THREE_PER_10S).build()).rules()).hasSize(1);
  }

  @Test
  void settlements_combined_settleBothRules() {
    EnforcementCore<String> first = core(failures("filter"));
    EnforcementCore<String> second = core(failures("handler"));
    for (int i = 0; i < 5; i++) {
      Settlement both = call(first, "ann").settlement().and(call(second, "ann").settlement());
      both.settle(200);
    }

    assertThat(call(first, "ann").headers().get("RateLimit")).startsWith("\"filter\";r=2;");
    assertThat(call(second, "ann").headers().get("RateLimit")).startsWith("\"handler\";r=2;");
    assertThat(Settlement.none().and(Settlement.none())).isSameAs(Settlement.none());
  }

  /**
   * Any schedule of requests and answers: what stays recorded (the requests that counted, and those
   * in flight) never holds more than the limit in any window, by an exact log of their times; and a
   * rule whose answers never count grants as if nothing happened.
   */
  @Property(tries = 300)
  void reserveAndSettle_anySchedule_keepsAtMostTheLimitInAnyWindow(
      @ForAll("schedules") List<int[]> steps) {
    FakeTicker clock = new FakeTicker();
    EnforcementCore<String> core =
        EnforcementCore.<String>builder()
            .limiterFactory(RateLimiterFactory.inMemory(clock, 1000))
            .rule(failures("logins"), request -> RequestKey.custom(request))
            .build();
    SlidingLogOracle oracle = new SlidingLogOracle(3, Duration.ofSeconds(10).toNanos());
    List<long[]> openTimes = new ArrayList<>();
    List<Settlement> open = new ArrayList<>();
    for (int[] step : steps) {
      switch (step[0]) {
        case 0 -> clock.advance(Duration.ofMillis(step[1]));
        case 1 -> {
          EnforcementCore.Outcome outcome = call(core, "ann");
          if (outcome.allowed()) {
            oracle.record(clock.read(), 1);
            openTimes.add(new long[] {clock.read()});
            open.add(outcome.settlement());
          }
        }
        default -> {
          if (!open.isEmpty()) {
            int i = step[1] % open.size();
            boolean counts = step[0] == 2;
            open.remove(i).settle(counts ? 401 : 200);
            long at = openTimes.remove(i)[0];
            if (!counts) {
              assertThat(oracle.removeInBucket(at, 1, 1)).isEqualTo(1);
            }
          }
        }
      }
      assertThat(oracle.maxInAnyWindow()).isLessThanOrEqualTo(3);
    }
  }

  @Provide
  Arbitrary<List<int[]>> schedules() {
    Arbitrary<int[]> step =
        Arbitraries.frequencyOf(
            Tuple.of(3, Arbitraries.integers().between(0, 4000).map(ms -> new int[] {0, ms})),
            Tuple.of(5, Arbitraries.just(new int[] {1, 0})),
            Tuple.of(2, Arbitraries.integers().between(0, 50).map(i -> new int[] {2, i})),
            Tuple.of(4, Arbitraries.integers().between(0, 50).map(i -> new int[] {3, i})));
    return step.list().ofMaxSize(80);
  }
}
