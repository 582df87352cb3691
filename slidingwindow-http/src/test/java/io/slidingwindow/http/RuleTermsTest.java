package io.slidingwindow.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.Limit;
import io.slidingwindow.testkit.FakeTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A rule's condition, its cost per request and the configured refusal, in both enforce paths. */
class RuleTermsTest {

  private static final Limit FIVE_PER_10S = Limit.of(5, Duration.ofSeconds(10));

  private final FakeTicker ticker = new FakeTicker();
  private final List<String> errors = new ArrayList<>();

  /** A request of these tests: whether it asks to be exempt, and the permits it asks for. */
  private record Request(boolean exempt, long asks) {}

  private final RateLimitListener recorder =
      new RateLimitListener() {
        @Override
        public void onError(HttpRule rule, RuntimeException error) {
          errors.add(rule.name() + ": " + error.getMessage());
        }
      };

  private EnforcementCore.Builder<Request> core() {
    return EnforcementCore.<Request>builder()
        .limiterFactory(RateLimiterFactory.inMemory(ticker, 100))
        .listener(recorder)
        .rateLimitHeaders(true);
  }

  private static HttpRule rule(long cost) {
    return HttpRule.builder("r").limit(FIVE_PER_10S).cost(cost).build();
  }

  private static EnforcementCore.Outcome sync(EnforcementCore<Request> core, Request request) {
    return core.enforce(request, "GET", List.of("/a"), QuotaHeaders::new);
  }

  private static EnforcementCore.Outcome async(EnforcementCore<Request> core, Request request) {
    return core.enforceAsync(request, "GET", List.of("/a"), QuotaHeaders::new)
        .toCompletableFuture()
        .join();
  }

  private EnforcementCore<Request> terms(long cost) {
    return core()
        .rule(rule(cost), r -> RequestKey.global(), r -> !r.exempt(), Request::asks)
        .build();
  }

  @Test
  void enforce_conditionFalse_skipsTheRuleAndConditionTrueCounts() {
    EnforcementCore<Request> core = terms(1);
    for (int i = 0; i < 10; i++) {
      assertThat(sync(core, new Request(true, 1)).headers()).isEmpty();
    }
    for (int i = 0; i < 5; i++) {
      assertThat(async(core, new Request(false, 1)).allowed()).isTrue();
    }
    assertThat(sync(core, new Request(false, 1)).allowed()).isFalse();
    assertThat(sync(core, new Request(true, 1)).allowed()).isTrue();
  }

  @Test
  void enforce_conditionThrows_ruleAppliesAndListenerIsTold() {
    EnforcementCore<Request> core =
        core()
            .rule(
                rule(1),
                r -> RequestKey.global(),
                r -> {
                  throw new IllegalStateException("broken condition");
                },
                r -> 1)
            .build();
    for (int i = 0; i < 5; i++) {
      assertThat(sync(core, new Request(true, 1)).allowed()).isTrue();
    }

    assertThat(async(core, new Request(true, 1)).allowed()).isFalse();
    assertThat(errors).hasSize(6).allMatch(e -> e.equals("r: broken condition"));
  }

  @Test
  void enforce_costAboveOne_takesThatManyPermits() {
    EnforcementCore<Request> core = terms(1);

    EnforcementCore.Outcome first = sync(core, new Request(false, 3));
    EnforcementCore.Outcome second = async(core, new Request(false, 2));
    EnforcementCore.Outcome third = sync(core, new Request(false, 1));

    assertThat(first.headers()).containsEntry("RateLimit", "\"r\";r=2;t=11");
    assertThat(second.headers()).containsEntry("RateLimit", "\"r\";r=0;t=11");
    assertThat(third.allowed()).isFalse();
  }

  @Test
  void enforce_zeroOrNegativeAsk_takesTheRulesCostNotFewer() {
    EnforcementCore<Request> core = terms(2);

    assertThat(sync(core, new Request(false, 0)).headers())
        .containsEntry("RateLimit", "\"r\";r=3;t=11");
    assertThat(async(core, new Request(false, -4)).headers())
        .containsEntry("RateLimit", "\"r\";r=1;t=11");
    assertThat(sync(core, new Request(false, Long.MIN_VALUE)).allowed()).isFalse();
    assertThat(errors).isEmpty();
  }

  @Test
  void enforce_askAboveALimit_isRefusedWithThatLimitsWindowAndNothingCounted() {
    EnforcementCore<Request> core = terms(1);

    EnforcementCore.Outcome sync = sync(core, new Request(false, 6));
    EnforcementCore.Outcome async = async(core, new Request(false, Long.MAX_VALUE));

    for (EnforcementCore.Outcome refused : List.of(sync, async)) {
      assertThat(refused.allowed()).isFalse();
      assertThat(refused.refusal().status()).isEqualTo(429);
      assertThat(refused.refusal().headers()).containsEntry("Retry-After", "10");
    }
    assertThat(sync(core, new Request(false, 5)).allowed()).as("nothing was counted").isTrue();
    assertThat(errors).isEmpty();
  }

  @Test
  void enforce_costThrows_takesTheRulesCostAndListenerIsTold() {
    EnforcementCore<Request> core =
        core()
            .rule(
                rule(2),
                r -> RequestKey.global(),
                r -> true,
                r -> {
                  throw new IllegalArgumentException("broken cost");
                })
            .build();

    assertThat(sync(core, new Request(false, 1)).headers())
        .containsEntry("RateLimit", "\"r\";r=3;t=11");
    assertThat(errors).containsExactly("r: broken cost");
  }

  @Test
  void enforce_fixedCost_isTakenByTheTwoArgumentRule() {
    EnforcementCore<Request> core = core().rule(rule(5), r -> RequestKey.global()).build();

    assertThat(async(core, new Request(false, 1)).allowed()).isTrue();
    assertThat(sync(core, new Request(false, 1)).allowed()).isFalse();
  }

  @Test
  void ruleBuilder_costAboveALimitOrNotPositive_throwsNamingIt() {
    HttpRule.Builder builder = HttpRule.builder("r").limit(FIVE_PER_10S);

    assertThatThrownBy(() -> builder.cost(0)).hasMessage("cost must be positive, was 0");
    assertThatThrownBy(() -> builder.cost(6).build())
        .hasMessage("cost must be at most every limit's permits, was 6 with a limit of 5");
  }

  @Test
  void enforce_configuredRefusal_answersItsStatusBodyAndTypeWithTheHeaders() {
    EnforcementCore<Request> core =
        core()
            .refusal(new RefusalReplies.Refusal(503, "text/plain", "busy"))
            .rule(rule(5), r -> RequestKey.global())
            .build();
    sync(core, new Request(false, 1));

    HttpReply sync = sync(core, new Request(false, 1)).refusal();
    HttpReply async = async(core, new Request(false, 1)).refusal();

    for (HttpReply reply : List.of(sync, async)) {
      assertThat(reply.status()).isEqualTo(503);
      assertThat(reply.contentType()).isEqualTo("text/plain");
      assertThat(reply.body()).isEqualTo("busy");
      assertThat(reply.headers()).containsKeys("Retry-After", "RateLimit", "RateLimit-Policy");
    }
  }

  @Test
  void refusal_defaultBodyWithAnotherStatus_isAProblemDocumentOfThatStatus() {
    HttpReply reply =
        new RefusalReplies.Refusal(403, "application/problem+json", null).reply(2, Map.of());

    assertThat(reply.body())
        .isEqualTo(
            "{\"type\":\"about:blank\",\"status\":403,"
                + "\"detail\":\"Request rate limit exceeded; retry after 2 seconds.\"}");
    assertThat(RefusalReplies.Refusal.DEFAULT.reply(1, Map.of()))
        .isEqualTo(RefusalReplies.tooManyRequests(1, Map.of()));
  }

  @Test
  void refusal_statusOutside4xx5xxOrBadContentType_throwsNamingIt() {
    assertThatThrownBy(() -> new RefusalReplies.Refusal(200, "text/plain", null))
        .hasMessage("status must be a client or server error, 400 to 599, was 200");
    assertThatThrownBy(() -> new RefusalReplies.Refusal(600, "text/plain", null))
        .hasMessageContaining("was 600");
    assertThatThrownBy(() -> new RefusalReplies.Refusal(429, "text/plain; charset=UTF-8", null))
        .hasMessage(
            "content type must be type/subtype without parameters, was 'text/plain; charset=UTF-8'");
  }
}
