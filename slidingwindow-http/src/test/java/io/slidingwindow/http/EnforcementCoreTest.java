package io.slidingwindow.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyRejectedException;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.LimiterKeys;
import io.slidingwindow.testkit.FakeTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
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
        public void onKeyOverflow(HttpRule rule) {
          events.add("overflow " + rule.name());
        }

        @Override
        public void onRejectedPath(String method, String requestUri, String reason) {
          events.add("rejected " + method + " " + requestUri);
        }
      };

  /**
   * A request of these tests: the text its key is made of, and its client address.
   *
   * @param client the text of its key
   * @param address its client address
   */
  private record Request(String client, String address) {
    Request(String client) {
      this(client, "192.0.2.1");
    }
  }

  private EnforcementCore.Builder<Request> core() {
    return EnforcementCore.<Request>builder()
        .limiterFactory(RateLimiterFactory.inMemory(ticker, 100, 100))
        .clientKey(r -> RequestKey.address(r.address(), 64))
        .listener(recorder)
        .rateLimitHeaders(true);
  }

  private static HttpRule rule(String name, boolean dryRun) {
    return HttpRule.builder(name).path("/api/**").limit(TWO_PER_10S).dryRun(dryRun).build();
  }

  private static EnforcementCore.Outcome sync(EnforcementCore<Request> core, String client) {
    return sync(core, new Request(client));
  }

  private static EnforcementCore.Outcome sync(EnforcementCore<Request> core, Request request) {
    return core.enforce(request, "GET", List.of("/api/a"), QuotaHeaders::new);
  }

  private static EnforcementCore.Outcome async(EnforcementCore<Request> core, String client) {
    return async(core, new Request(client));
  }

  private static EnforcementCore.Outcome async(EnforcementCore<Request> core, Request request) {
    CompletableFuture<EnforcementCore.Outcome> outcome =
        core.enforceAsync(request, "GET", List.of("/api/a"), QuotaHeaders::new)
            .toCompletableFuture();
    assertThat(outcome).as("in-memory decisions complete at once").isDone();
    return outcome.join();
  }

  @Test
  void enforceAndEnforceAsync_refusal_carriesTheRefusingDecisionWithItsExactWait() {
    EnforcementCore<Request> core =
        core().rule(rule("r", false), r -> RequestKey.custom(r.client())).build();
    assertThat(sync(core, "c").refused()).isNull();
    ticker.advance(Duration.ofMillis(1500));
    assertThat(async(core, "c").refused()).isNull();
    EnforcementCore.Outcome sync = sync(core, "c");
    EnforcementCore.Outcome async = async(core, "c");
    for (EnforcementCore.Outcome refused : List.of(sync, async)) {
      assertThat(refused.allowed()).isFalse();
      assertThat(refused.refused().allowed()).isFalse();
      assertThat(refused.refused().retryAfter())
          .isBetween(Duration.ofMillis(8500), Duration.ofMillis(8510));
      assertThat(refused.refusal().headers()).containsEntry(QuotaHeaders.RETRY_AFTER, "9");
    }
  }

  /**
   * A request looked at once more after its method changed (POST, then DELETE by an override): the
   * rule for DELETE counts it the second time, the rule for every method that counted it the first
   * time does not count it again, and the set of applied rules holds both.
   */
  @Test
  void enforceAndEnforceAsync_withAppliedRules_countOnlyTheRulesThatApplyAnew() {
    for (boolean blocking : new boolean[] {true, false}) {
      EnforcementCore<Request> core =
          core()
              .rule(
                  HttpRule.builder("every").path("/api/**").limit(TWO_PER_10S).build(),
                  r -> RequestKey.custom(r.client()))
              .rule(
                  HttpRule.builder("deletes")
                      .path("/api/**")
                      .methods("DELETE")
                      .limit(Limit.of(1, Duration.ofSeconds(10)))
                      .build(),
                  r -> RequestKey.custom(r.client()))
              .build();
      List<String> paths = List.of("/api/a");
      for (int request = 1; request <= 2; request++) {
        EnforcementCore.Applied applied = core.newApplied();
        Request r = new Request("c" + blocking);
        EnforcementCore.Outcome first =
            blocking
                ? core.enforce(r, "POST", paths, QuotaHeaders::new, applied)
                : core.enforceAsync(r, "POST", paths, QuotaHeaders::new, applied)
                    .toCompletableFuture()
                    .join();
        assertThat(first.allowed()).isTrue();
        assertThat(applied.rules().stream().boxed().toList()).containsExactly(0);
        EnforcementCore.Outcome again =
            blocking
                ? core.enforce(r, "DELETE", paths, QuotaHeaders::new, applied)
                : core.enforceAsync(r, "DELETE", paths, QuotaHeaders::new, applied)
                    .toCompletableFuture()
                    .join();
        assertThat(applied.rules().stream().boxed().toList()).containsExactly(0, 1);
        assertThat(again.allowed())
            .as("blocking %s, request %s: the DELETE rule's one permit", blocking, request)
            .isEqualTo(request == 1);
        if (request == 1) {
          assertThat(again.headers().get(QuotaHeaders.RATE_LIMIT))
              .as("the rule for every method was not asked again")
              .contains("\"deletes\"")
              .doesNotContain("\"every\"");
        }
      }
      assertThat(sync(core, new Request("c" + blocking)).allowed())
          .as("blocking %s: the rule for every method counted each request once", blocking)
          .isFalse();
    }
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

  /** A limiter whose every decision fails with {@code error}, at once or in its stage. */
  private static RateLimiterFactory failingWith(RuntimeException error) {
    return (name, limits, countRefused) ->
        new KeyedRateLimiter<>() {
          @Override
          public boolean tryAcquire(String key, long permits) {
            throw new AssertionError("not used");
          }

          @Override
          public Decision decide(String key, long permits) {
            throw error;
          }

          @Override
          public CompletionStage<Decision> decideAsync(String key, long permits) {
            return CompletableFuture.failedFuture(error);
          }

          @Override
          public List<Limit> limits() {
            return limits;
          }
        };
  }

  @Test
  void enforceAndEnforceAsync_backendFailure_failsOpenAndTellsTheListener() {
    EnforcementCore<Request> core =
        core()
            .limiterFactory(failingWith(new IllegalStateException("backend down")))
            .rule(rule("down", false), r -> RequestKey.custom(r.client()))
            .build();

    assertThat(async(core, "c")).isEqualTo(EnforcementCore.Outcome.passed(Map.of(), null));
    assertThat(sync(core, "c").allowed()).isTrue();
    assertThat(events)
        .containsExactly("rule down", "error down backend down", "error down backend down");
  }

  /** A key function that throws or gives null never exempts: the client's address counts. */
  @Test
  void enforceAndEnforceAsync_keyThatThrowsOrIsNull_countsUnderTheClientAddress() {
    EnforcementCore<Request> core =
        core()
            .rule(
                rule("faulty", false),
                r -> {
                  if (r.client().equals("throw")) {
                    throw new IllegalArgumentException("bad expression");
                  }
                  return r.client().equals("null") ? null : RequestKey.custom(r.client());
                })
            .build();
    List<String> keys = new ArrayList<>();
    EnforcementCore<Request> keyed =
        core()
            .listener(
                new RateLimitListener() {
                  @Override
                  public void onAllowed(HttpRule rule, Decision decision, String key) {
                    keys.add(key);
                  }
                })
            .rule(rule("seen", false), r -> null)
            .build();

    assertThat(async(core, "throw").allowed()).isTrue();
    assertThat(sync(core, "null").allowed()).isTrue();
    assertThat(async(core, "throw").allowed()).as("the address's two permits are spent").isFalse();
    assertThat(sync(core, "null").allowed()).isFalse();
    assertThat(sync(core, "own key").allowed()).as("a key of its own still counts apart").isTrue();
    assertThat(async(core, new Request("throw", "192.0.2.2")).allowed())
        .as("another address")
        .isTrue();
    sync(keyed, "x");
    assertThat(keys).containsExactly("ip:192.0.2.1");
    assertThat(events)
        .contains(
            "error faulty bad expression",
            "error faulty the key function gave no key",
            "refused faulty",
            "allowed faulty");
  }

  @Test
  void enforceAndEnforceAsync_limiterRejectingTheKey_countsUnderTheClientAddressNeverGrants() {
    EnforcementCore<Request> picky =
        core()
            .limiterFactory(
                (name, limits, countRefused) -> {
                  KeyedRateLimiter<String> inner =
                      KeyedRateLimiter.builder().limits(limits).ticker(ticker).build();
                  return new RejectingCustomKeys(inner);
                })
            .rule(rule("picky", false), r -> RequestKey.custom(r.client()))
            .build();
    EnforcementCore<Request> rejectsAll =
        core()
            .limiterFactory(failingWith(new KeyRejectedException("key too long")))
            .rule(rule("all", false), r -> RequestKey.custom(r.client()))
            .build();

    assertThat(sync(picky, "a").allowed()).isTrue();
    assertThat(async(picky, "b").allowed()).isTrue();
    assertThat(async(picky, "c").allowed()).as("all three counted under one address").isFalse();
    assertThat(sync(rejectsAll, "a").allowed()).as("no policy turns it into a grant").isFalse();
    assertThat(async(rejectsAll, "a").allowed()).isFalse();
    assertThat(events).contains("error picky custom keys are rejected", "error all key too long");
  }

  /**
   * An invalid argument that is not a rejected key (here a cost the application's limiter will not
   * take for a key) is refused and counted nowhere: never moved to the client's address, whose
   * limits may be larger than the key's own.
   */
  @Test
  void enforceAndEnforceAsync_limiterThrowingAnotherInvalidArgument_refusesCountedNowhere() {
    AtomicReference<KeyedRateLimiter<String>> inner = new AtomicReference<>();
    EnforcementCore<Request> strict =
        core()
            .limiterFactory(
                (name, limits, countRefused) -> {
                  inner.set(KeyedRateLimiter.builder().limits(limits).ticker(ticker).build());
                  return new RejectingCustomKeys(
                      inner.get(), new IllegalArgumentException("cost above this key's cap"));
                })
            .rule(rule("strict", false), r -> RequestKey.custom(r.client()))
            .build();

    EnforcementCore.Outcome first = sync(strict, "a");
    EnforcementCore.Outcome second = async(strict, "b");

    assertThat(first.allowed()).as("never granted under the address").isFalse();
    assertThat(second.allowed()).isFalse();
    assertThat(inner.get().peek("ip:192.0.2.1").remaining())
        .as("nothing counted under the client's address")
        .isEqualTo(2);
    assertThat(events)
        .filteredOn(event -> event.equals("error strict cost above this key's cap"))
        .as("the listener told of each request")
        .hasSize(2);
    assertThat(events).doesNotContain("allowed strict");
  }

  /** A limiter that throws {@code error} for custom keys and decides every other key. */
  record RejectingCustomKeys(KeyedRateLimiter<String> inner, IllegalArgumentException error)
      implements KeyedRateLimiter<String> {

    /** A limiter that rejects custom keys as invalid ({@link KeyRejectedException}). */
    RejectingCustomKeys(KeyedRateLimiter<String> inner) {
      this(inner, new KeyRejectedException("custom keys are rejected"));
    }

    @Override
    public boolean tryAcquire(String key, long permits) {
      return decide(key, permits).allowed();
    }

    @Override
    public Decision decide(String key, long permits) {
      if (key.startsWith("custom:")) {
        throw error;
      }
      return inner.decide(key, permits);
    }

    @Override
    public List<Limit> limits() {
      return inner.limits();
    }
  }

  @Test
  void enforce_clientFloodingNewKeys_overflowsItsOwnShareOnlyAndTellsTheListener() {
    EnforcementCore<Request> core =
        core()
            .limiterFactory(RateLimiterFactory.inMemory(ticker, 100, 5))
            .rule(rule("keys", false), r -> RequestKey.custom(r.client()))
            .build();
    int granted = 0;
    for (int i = 0; i < 50; i++) {
      granted += sync(core, "flood" + i).allowed() ? 1 : 0;
    }
    assertThat(granted).isEqualTo(5);
    assertThat(events).contains("overflow keys");
    for (int i = 0; i < 20; i++) {
      assertThat(async(core, new Request("own" + i, "198.51.100." + i)).allowed())
          .as("client %d", i)
          .isTrue();
    }
  }

  @Test
  void enforceAsync_ruleNotMatching_isSkipped() {
    EnforcementCore<Request> core =
        core()
            .rule(
                HttpRule.builder("posts").methods("POST").limit(TWO_PER_10S).build(),
                r -> RequestKey.global())
            .build();
    EnforcementCore.Outcome outcome = async(core, "c");
    assertThat(outcome.allowed()).isTrue();
    assertThat(outcome.headers()).isEmpty();
    assertThat(events).containsExactly("rule posts");
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
  void enforce_longKey_isCountedUnderItsDigest() {
    List<String> keys = new ArrayList<>();
    EnforcementCore<Request> core =
        core()
            .listener(
                new RateLimitListener() {
                  @Override
                  public void onAllowed(HttpRule rule, Decision decision, String key) {
                    keys.add(key);
                  }
                })
            .rule(rule("r", false), r -> RequestKey.custom(r.client()))
            .build();
    String longText = "h".repeat(1_100);

    assertThat(sync(core, longText).allowed()).isTrue();
    assertThat(async(core, longText).allowed()).isTrue();
    assertThat(sync(core, longText).allowed()).isFalse();
    assertThat(sync(core, longText + "y").allowed()).as("not cut: another key").isTrue();
    assertThat(keys.get(0))
        .isEqualTo(LimiterKeys.bounded("custom:" + longText))
        .startsWith(LimiterKeys.DIGEST_PREFIX)
        .hasSizeLessThanOrEqualTo(LimiterKeys.MAX_CHARS);
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
