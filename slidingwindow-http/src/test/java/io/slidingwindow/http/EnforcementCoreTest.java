package io.slidingwindow.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.testkit.FakeTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

class EnforcementCoreTest {

  private static final Limit TWO_PER_10S = Limit.of(2, Duration.ofSeconds(10));

  private final FakeTicker ticker = new FakeTicker();
  private final List<String> events = new ArrayList<>();

  private final RateLimitListener recorder =
      new RateLimitListener() {
        @Override
        public void onRule(HttpRule rule) {
          events.add("rule " + rule.name());
        }

        @Override
        public void onAllowed(HttpRule rule, Decision decision) {
          events.add("allowed " + rule.name());
        }

        @Override
        public void onRefused(HttpRule rule, Decision decision, boolean dryRun) {
          events.add("refused " + rule.name() + (dryRun ? " dry-run" : ""));
        }

        @Override
        public void onError(HttpRule rule, RuntimeException error) {
          events.add("error " + rule.name() + " " + error.getMessage());
        }

        @Override
        public void onRejectedPath(String method, String requestUri, String reason) {
          events.add("rejected " + method + " " + requestUri);
        }
      };

  /** A request of these tests: the text its key is made of. */
  private record Request(String client) {}

  private EnforcementCore.Builder<Request> core() {
    return EnforcementCore.<Request>builder()
        .limiterFactory(RateLimiterFactory.inMemory(ticker, 100))
        .listener(recorder)
        .rateLimitHeaders(true);
  }

  private static HttpRule rule(String name, boolean dryRun) {
    return HttpRule.builder(name).path("/api/**").limit(TWO_PER_10S).dryRun(dryRun).build();
  }

  private static EnforcementCore.Outcome sync(EnforcementCore<Request> core, String client) {
    return core.enforce(new Request(client), "GET", List.of("/api/a"), QuotaHeaders::new);
  }

  private static EnforcementCore.Outcome async(EnforcementCore<Request> core, String client) {
    CompletableFuture<EnforcementCore.Outcome> outcome =
        core.enforceAsync(new Request(client), "GET", List.of("/api/a"), QuotaHeaders::new)
            .toCompletableFuture();
    assertThat(outcome).as("in-memory decisions complete at once").isDone();
    return outcome.join();
  }

  @Test
  void enforceAndEnforceAsync_sameRequests_giveTheSameOutcomes() {
    EnforcementCore<Request> sync =
        core().rule(rule("r", false), r -> RequestKey.custom(r.client())).build();
    EnforcementCore<Request> async =
        core().rule(rule("r", false), r -> RequestKey.custom(r.client())).build();
    for (int i = 0; i < 3; i++) {
      EnforcementCore.Outcome a = sync(sync, "c");
      EnforcementCore.Outcome b = async(async, "c");
      assertThat(b.allowed()).isEqualTo(a.allowed());
      assertThat(b.headers()).isEqualTo(a.headers());
      assertThat(b.refusal()).isEqualTo(a.refusal());
    }
    EnforcementCore.Outcome refused = async(async, "c");
    assertThat(refused.allowed()).isFalse();
    assertThat(refused.refusal().status()).isEqualTo(429);
    assertThat(refused.refusal().headers())
        .containsKey(QuotaHeaders.RETRY_AFTER)
        .containsEntry(QuotaHeaders.RATE_LIMIT_POLICY, "\"r\";q=2;w=10");
    assertThat(Long.parseLong(refused.refusal().headers().get(QuotaHeaders.RETRY_AFTER)))
        .isBetween(10L, 11L);
    assertThat(refused.refusal().contentType()).isEqualTo(RefusalReplies.PROBLEM_JSON);
    assertThat(async(async, "other").allowed()).isTrue();
  }

  @Test
  void enforceAsync_grant_returnsTheDraft10Headers() {
    EnforcementCore<Request> core =
        core().rule(rule("r", false), r -> RequestKey.custom(r.client())).build();
    EnforcementCore.Outcome outcome = async(core, "c");
    assertThat(outcome.allowed()).isTrue();
    assertThat(outcome.headers())
        .containsExactly(
            Map.entry(QuotaHeaders.RATE_LIMIT_POLICY, "\"r\";q=2;w=10"),
            Map.entry(QuotaHeaders.RATE_LIMIT, "\"r\";r=1;t=11"));
  }

  @Test
  void enforceAsync_dryRunRule_reportsButNeverRefuses() {
    EnforcementCore<Request> core =
        core().rule(rule("trial", true), r -> RequestKey.custom(r.client())).build();
    for (int i = 0; i < 4; i++) {
      assertThat(async(core, "c").allowed()).isTrue();
    }
    assertThat(events)
        .containsExactly(
            "rule trial",
            "allowed trial",
            "allowed trial",
            "refused trial dry-run",
            "refused trial dry-run");
  }

  @Test
  void enforceAsync_firstRefusingRule_endsTheRequestAndLaterRulesAreNotCharged() {
    EnforcementCore<Request> core =
        core()
            .rule(rule("first", false), r -> RequestKey.global())
            .rule(rule("second", false), r -> RequestKey.custom(r.client()))
            .build();
    async(core, "a");
    async(core, "b");
    assertThat(async(core, "c").allowed()).isFalse();
    // "c" was never charged by the second rule: it still has both permits there.
    events.clear();
    ticker.advance(Duration.ofSeconds(11));
    EnforcementCore.Outcome outcome = async(core, "c");
    assertThat(outcome.headers().get(QuotaHeaders.RATE_LIMIT)).contains("\"second\";r=1");
  }

  @Test
  void enforceAsync_failingDecisionOrKey_failsOpenAndTellsTheListener() {
    RateLimiterFactory failing =
        (name, limits, countRefused) ->
            new KeyedRateLimiter<>() {
              @Override
              public boolean tryAcquire(String key, long permits) {
                throw new AssertionError("not used");
              }

              @Override
              public Decision decide(String key, long permits) {
                throw new IllegalStateException("backend down");
              }

              @Override
              public CompletionStage<Decision> decideAsync(String key, long permits) {
                return CompletableFuture.failedFuture(new IllegalStateException("backend down"));
              }

              @Override
              public List<Limit> limits() {
                return limits;
              }
            };
    EnforcementCore<Request> core =
        core()
            .limiterFactory(failing)
            .rule(rule("down", false), r -> RequestKey.custom(r.client()))
            .build();
    EnforcementCore<Request> badKey =
        core()
            .rule(
                rule("key", false),
                r -> {
                  throw new IllegalArgumentException("bad expression");
                })
            .build();

    assertThat(async(core, "c")).isEqualTo(new EnforcementCore.Outcome(null, Map.of()));
    assertThat(sync(core, "c").allowed()).isTrue();
    assertThat(async(badKey, "c").allowed()).isTrue();
    assertThat(events)
        .containsExactly(
            "rule down",
            "rule key",
            "error down backend down",
            "error down backend down",
            "error key bad expression");
  }

  @Test
  void enforceAsync_ruleNotMatchingOrNullKey_isSkipped() {
    EnforcementCore<Request> core =
        core()
            .rule(
                HttpRule.builder("posts").methods("POST").limit(TWO_PER_10S).build(),
                r -> RequestKey.global())
            .rule(rule("none", false), r -> null)
            .build();
    EnforcementCore.Outcome outcome = async(core, "c");
    assertThat(outcome.allowed()).isTrue();
    assertThat(outcome.headers()).isEmpty();
    assertThat(events).containsExactly("rule posts", "rule none");
  }

  @Test
  void checkPath_ambiguousPathWithPathRules_isRefusedWith400AndReported() {
    EnforcementCore<Request> core = core().rule(rule("r", false), r -> RequestKey.global()).build();
    assertThat(core.checkPath("GET", "/api/a")).isEmpty();
    HttpReply reply = core.checkPath("GET", "/api/%2e%2e/admin").orElseThrow();
    assertThat(reply.status()).isEqualTo(400);
    assertThat(events).contains("rejected GET /api/%2e%2e/admin");
    EnforcementCore<Request> everyPath =
        core()
            .rule(HttpRule.builder("all").limit(TWO_PER_10S).build(), r -> RequestKey.global())
            .build();
    assertThat(everyPath.checkPath("GET", "/api/%2e%2e/admin")).isEmpty();
  }

  @Test
  void boundedKey_longKey_isItsDigestAndShortKeyItself() {
    String shortKey = "h".repeat(EnforcementCore.MAX_KEY_CHARS);
    String longKey = shortKey + "x";
    assertThat(EnforcementCore.boundedKey(shortKey)).isEqualTo(shortKey);
    assertThat(EnforcementCore.boundedKey(longKey)).startsWith("sha256:").hasSize(50);
    assertThat(EnforcementCore.boundedKey(longKey))
        .isNotEqualTo(EnforcementCore.boundedKey(longKey + "y"));
  }

  @Test
  void builder_repeatedNameOrNullRule_throwsNamingIt() {
    assertThatThrownBy(
            () ->
                core()
                    .rule(rule("r", false), r -> RequestKey.global())
                    .rule(rule("r", true), r -> RequestKey.global())
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("rule names must be unique, 'r' repeats");
    assertThatThrownBy(() -> core().rule(null, r -> RequestKey.global()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("rule and keys must not be null");
  }

  @Test
  void enforceAndEnforceAsync_keyedListener_toldTheKeyOfEachDecision() {
    List<String> keyed = new ArrayList<>();
    RateLimitListener keys =
        new RateLimitListener() {
          @Override
          public void onAllowed(HttpRule rule, Decision decision, String key) {
            keyed.add("allowed " + rule.name() + " " + key);
          }

          @Override
          public void onRefused(HttpRule rule, Decision decision, boolean dryRun, String key) {
            keyed.add("refused " + rule.name() + (dryRun ? " dry-run " : " ") + key);
          }
        };
    RateLimitListener both = RateLimitListener.composite(List.of(keys, recorder));
    EnforcementCore<Request> sync =
        core().listener(both).rule(rule("r", false), r -> RequestKey.custom(r.client())).build();
    EnforcementCore<Request> async =
        core().listener(both).rule(rule("t", true), r -> RequestKey.custom(r.client())).build();
    for (int i = 0; i < 3; i++) {
      sync(sync, "a");
      async(async, "b");
    }
    assertThat(keyed)
        .containsExactly(
            "allowed r custom:a",
            "allowed t custom:b",
            "allowed r custom:a",
            "allowed t custom:b",
            "refused r custom:a",
            "refused t dry-run custom:b");
    assertThat(events)
        .as("a listener of the methods without key is still told")
        .containsSubsequence("allowed r", "allowed t", "refused r", "refused t dry-run");
  }
}
