package io.slidingwindow.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.testkit.LogCapture;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

/**
 * What the smaller HTTP parts promise at their edges: a rule's methods and flags, the policy names
 * and headers at a {@code t} equal to Retry-After, the raised Retry-After after an enforcing grant
 * (and not after a dry-run one), composite listeners, the unwrapping of asynchronous failures, and
 * the log lines operators read.
 */
class HttpPartsEdgesTest {

  private static final Limit ONE_PER_MINUTE = Limit.of(1, Duration.ofMinutes(1));
  private static final Limit ONE_PER_10S = Limit.of(1, Duration.ofSeconds(10));

  @Test
  void matches_methodsAndHead_followTheRulesMethods() {
    HttpRule get = HttpRule.builder("r").path("/a").methods("get").limit(ONE_PER_10S).build();
    assertThat(get.matches("GET", "/a")).isTrue();
    assertThat(get.matches("head", "/a")).isTrue();
    assertThat(get.matches("POST", "/a")).isFalse();
    assertThat(get.matches(null, "/a")).isFalse();
    assertThat(get.matches("GET", "/b")).isFalse();
    assertThat(get.methods()).containsExactly("GET");
    HttpRule head = HttpRule.builder("h").methods("HEAD").limit(ONE_PER_10S).build();
    assertThat(head.matches("GET", "/a")).isFalse();
    assertThat(head.matches("HEAD", "/anything")).isTrue();
  }

  @Test
  void countRefusedAttempts_isWhatWasSetAndShowsInTheText() {
    HttpRule counting =
        HttpRule.builder("c").limit(ONE_PER_10S).countRefusedAttempts(true).cost(1).build();
    HttpRule plain = HttpRule.builder("p").limit(ONE_PER_10S).build();
    assertThat(counting.countRefusedAttempts()).isTrue();
    assertThat(plain.countRefusedAttempts()).isFalse();
    assertThat(counting.toString()).contains(" counting refused").doesNotContain("dry-run");
    assertThat(plain.toString()).doesNotContain("counting refused", "dry-run", "cost");
    HttpRule dry = HttpRule.builder("d").limit(ONE_PER_10S).dryRun(true).cost(1).build();
    assertThat(dry.toString()).contains(" dry-run").doesNotContain("cost");
    assertThat(HttpRule.builder("k").limit(ONE_PER_10S).cost(1).build().toString())
        .doesNotContain("cost");
  }

  @Test
  void policyNames_windowsInMillisecondsOrNanoseconds_andRepeats_areTold() {
    Limit halfSecond = Limit.of(5, Duration.ofMillis(500));
    Limit nanos = Limit.of(5, Duration.ofNanos(250));
    assertThat(QuotaHeaders.policyNames("r", List.of(halfSecond, nanos, halfSecond)))
        .containsExactly("r-500ms", "r-250ns", "r-3");
  }

  @Test
  void headers_tEqualToRetryAfterIsKeptAndAboveItLeftOut() {
    Limit tenSeconds = Limit.of(5, Duration.ofSeconds(10));
    QuotaHeaders headers = new QuotaHeaders();
    headers.add(
        List.of(tenSeconds), List.of("a"), Decision.granted(2, Duration.ofSeconds(3), tenSeconds));
    assertThat(headers.headers(3).get(QuotaHeaders.RATE_LIMIT)).isEqualTo("\"a\";r=2;t=3");
    assertThat(headers.headers(2).get(QuotaHeaders.RATE_LIMIT)).isEqualTo("\"a\";r=2");
    assertThat(headers.headers(0).get(QuotaHeaders.RATE_LIMIT)).isEqualTo("\"a\";r=2");
    assertThat(headers.headers().get(QuotaHeaders.RATE_LIMIT)).isEqualTo("\"a\";r=2;t=3");
    assertThatThrownBy(() -> headers.headers(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("retryAfterSeconds")
        .hasMessageContaining("-1");
  }

  @Test
  void nextPermitBoundNanos_otherLimits_addTheirWindowAndPrecisionLessOneNanosecond() {
    Limit other = Limit.of(3, Duration.ofSeconds(10)).withPrecision(Duration.ofMillis(10));
    Decision grant = Decision.granted(0, Duration.ofSeconds(1), ONE_PER_10S);
    assertThat(QuotaHeaders.nextPermitBoundNanos(List.of(ONE_PER_10S, other), grant))
        .isEqualTo(Duration.ofSeconds(10).plusMillis(10).toNanos() - 1);
  }

  @Test
  void enforce_afterAnEnforcingGrantLeftNoPermit_raisesTheNextRefusalsRetryAfter() {
    // The minute's grant left it empty until its newest bucket leaves: 60 s plus one 60 ms bucket.
    assertThat(retryAfterOfSecondRequest(false)).isEqualTo("61");
    // A dry-run rule's grant limits nothing, so it raises nothing: the refusal's own wait, 10 s
    // plus one 10 ms bucket.
    assertThat(retryAfterOfSecondRequest(true)).isEqualTo("11");
  }

  /** Rule "minute" (two per minute) then rule "tens" (one per 10 s), for one client, twice. */
  private static String retryAfterOfSecondRequest(boolean minuteDryRun) {
    EnforcementCore<String> core =
        EnforcementCore.<String>builder()
            .limiterFactory(RateLimiterFactory.inMemory(new FakeTicker(), 10))
            .rule(
                HttpRule.builder("minute")
                    .limit(Limit.of(2, Duration.ofMinutes(1)))
                    .dryRun(minuteDryRun)
                    .build(),
                RequestKey::custom)
            .rule(HttpRule.builder("tens").limit(ONE_PER_10S).build(), RequestKey::custom)
            .build();
    assertThat(core.enforce("c", "GET", List.of("/"), QuotaHeaders::new).allowed()).isTrue();
    EnforcementCore.Outcome second = core.enforce("c", "GET", List.of("/"), QuotaHeaders::new);
    assertThat(second.allowed()).isFalse();
    return second.refusal().headers().get(QuotaHeaders.RETRY_AFTER);
  }

  @Test
  void rulesAndFirewall_areWhatWasBuilt() {
    HttpRule rule = HttpRule.builder("r").path("/a/**").limit(ONE_PER_10S).build();
    EnforcementCore<String> core =
        EnforcementCore.<String>builder()
            .rule(rule, RequestKey::custom)
            .pathFirewall(PathFirewall.off())
            .build();
    assertThat(core.rules()).containsExactly(rule);
    assertThat(core.checkPath("GET", "/a/..;/b")).isEmpty();
    assertThatThrownBy(() -> EnforcementCore.<String>builder().pathFirewall(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("pathFirewall must not be null");
  }

  @Test
  void enforceAsync_limiterThrowingAtOnce_failsOpenAndTellsTheListener() {
    List<String> errors = new ArrayList<>();
    KeyedRateLimiter<String> throwing =
        new KeyedRateLimiter<>() {
          @Override
          public boolean tryAcquire(String key, long permits) {
            throw new IllegalStateException("down");
          }

          @Override
          public Decision decide(String key, long permits) {
            throw new IllegalStateException("down");
          }

          @Override
          public CompletionStage<Decision> decideAsync(String key, long permits) {
            throw new IllegalStateException("down");
          }

          @Override
          public List<Limit> limits() {
            return List.of(ONE_PER_10S);
          }
        };
    EnforcementCore<String> core =
        EnforcementCore.<String>builder()
            .limiterFactory((name, limits, countRefused) -> throwing)
            .listener(
                new RateLimitListener() {
                  @Override
                  public void onError(HttpRule rule, RuntimeException error) {
                    errors.add(rule.name() + ": " + error.getMessage());
                  }
                })
            .rule(HttpRule.builder("r").limit(ONE_PER_10S).build(), RequestKey::custom)
            .build();
    EnforcementCore.Outcome outcome =
        core.enforceAsync("c", "GET", List.of("/"), QuotaHeaders::new).toCompletableFuture().join();
    assertThat(outcome.allowed()).isTrue();
    assertThat(errors).containsExactly("r: down");
  }

  @Test
  void asRuntime_unwrapsCompletionsAndWrapsCheckedCauses() {
    IllegalStateException inner = new IllegalStateException("inner");
    assertThat(ListenerCalls.asRuntime(new CompletionException(inner))).isSameAs(inner);
    CompletionException empty = new CompletionException("empty", null);
    assertThat(ListenerCalls.asRuntime(empty)).isSameAs(empty);
    IOException io = new IOException("io");
    RuntimeException wrapped = ListenerCalls.asRuntime(new CompletionException(io));
    assertThat(wrapped)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("the limiter failed: java.io.IOException: io")
        .hasCause(io);
    assertThat(ListenerCalls.asRuntime(null)).hasMessage("the limiter answered nothing");
  }

  @Test
  void composite_passesEveryEventToEachListenerDespiteOneThatThrows() {
    List<String> events = new ArrayList<>();
    RateLimitListener throwing =
        new RateLimitListener() {
          @Override
          public void onRule(HttpRule rule) {
            throw new IllegalStateException("first fails");
          }

          @Override
          public void onRejectedPath(String method, String requestUri, String reason) {
            throw new IllegalStateException("first fails");
          }
        };
    RateLimitListener recording =
        new RateLimitListener() {
          @Override
          public void onRule(HttpRule rule) {
            events.add("rule");
          }

          @Override
          public void onAllowed(HttpRule rule, Decision decision) {
            events.add("allowed");
          }

          @Override
          public void onRefused(HttpRule rule, Decision decision, boolean dryRun) {
            events.add("refused " + dryRun);
          }

          @Override
          public void onError(HttpRule rule, RuntimeException error) {
            events.add("error " + error.getMessage());
          }

          @Override
          public void onRejectedPath(String method, String requestUri, String reason) {
            events.add("rejected " + method + " " + requestUri + " " + reason);
          }
        };
    RateLimitListener both = RateLimitListener.composite(List.of(throwing, recording));
    HttpRule rule = HttpRule.builder("r").limit(ONE_PER_10S).build();
    Decision granted = Decision.granted(0, Duration.ZERO, ONE_PER_10S);
    both.onRule(rule);
    both.onAllowed(rule, granted);
    both.onAllowed(rule, granted, "key");
    both.onRefused(rule, granted, true);
    both.onRefused(rule, granted, false, "key");
    both.onError(rule, new IllegalStateException("e"));
    both.onRejectedPath("GET", "/x", "why");
    assertThat(events)
        .containsExactly(
            "rule",
            "allowed",
            "allowed",
            "refused true",
            "refused false",
            "error e",
            "rejected GET /x why");
    assertThat(both.toString()).startsWith("RateLimitListener.composite[");
    assertThat(RateLimitListener.composite(List.of(recording))).isSameAs(recording);
  }

  @Test
  void inMemory_defaultFactory_buildsWorkingLimiters() {
    KeyedRateLimiter<String> limiter =
        RateLimiterFactory.inMemory().create("r", List.of(ONE_PER_MINUTE), false);
    assertThat(limiter.tryAcquire("k")).isTrue();
    assertThat(limiter.tryAcquire("k")).isFalse();
    assertThat(limiter.limits()).containsExactly(ONE_PER_MINUTE);
  }

  @Test
  void tooManyRequestsBody_isThe429Problem() {
    assertThat(RefusalReplies.tooManyRequestsBody(3))
        .isEqualTo(RefusalReplies.problemBody(429, 3))
        .contains("429");
  }

  @Test
  void pathPattern_equalityAndTextFollowThePattern() {
    assertThat(PathPattern.of("/a/*")).isEqualTo(PathPattern.of("/a/*"));
    assertThat(PathPattern.of("/a/*")).isNotEqualTo(PathPattern.of("/a/**"));
    assertThat(PathPattern.of("/a/*")).isNotEqualTo("/a/*");
    assertThat(PathPattern.of("/a/*").hashCode()).isEqualTo(PathPattern.of("/a/*").hashCode());
    assertThat(PathPattern.of("/a/*").hashCode()).isNotEqualTo(PathPattern.of("/b/*").hashCode());
    assertThat(PathPattern.of("/a/*")).hasToString("/a/*");
  }

  /** Collects what {@code logger} writes while {@code action} runs, as "LEVEL message". */
  private static List<String> logged(Class<?> logger, Runnable action) {
    try (LogCapture log = LogCapture.of(logger.getName())) {
      action.run();
      return log.records().stream().map(r -> r.getLevel() + " " + r.getMessage()).toList();
    }
  }

  @Test
  void enforce_keyFailedOrRejected_logSaysWhereItCountsWithAndWithoutClients() {
    // A limiter that rejects every custom key; the key function gives none for "none".
    RateLimiterFactory picky =
        (name, limits, countRefused) ->
            new EnforcementCoreTest.RejectingCustomKeys(
                KeyedRateLimiter.builder().limits(limits).build());
    HttpRule rule = HttpRule.builder("r").limit(ONE_PER_10S).build();
    EnforcementCore.Builder<String> http =
        EnforcementCore.<String>builder().clientKey(q -> RequestKey.address("192.0.2.1", 64));
    EnforcementCore.Builder<String> bean = EnforcementCore.builder();
    for (EnforcementCore.Builder<String> core : List.of(http, bean)) {
      core.limiterFactory(picky).rule(rule, q -> q.equals("none") ? null : RequestKey.custom(q));
    }
    String byClient = "the request counts under its client's key";
    String byGlobal =
        "the call counts under the global key, shared by every call of the rule without a key";

    for (var expected : Map.of(http.build(), byClient, bean.build(), byGlobal).entrySet()) {
      List<String> lines =
          logged(
              EnforcementCore.class,
              () -> {
                expected.getKey().enforce("none", "CALL", List.of("/m"), QuotaHeaders::new);
                expected.getKey().enforce("bad", "CALL", List.of("/m"), QuotaHeaders::new);
              });
      assertThat(lines)
          .containsExactly(
              "WARNING rate limit rule 'r' failed; its key function gave no key; "
                  + expected.getValue()
                  + " (logged once; later failures at DEBUG)",
              "WARNING rate limit rule 'r' failed; its limiter rejected the key; "
                  + expected.getValue()
                  + " (logged once; later failures at DEBUG)");
    }
  }

  @Test
  void enforce_limiterThrowingAnotherInvalidArgument_logSaysRefusedCountedNowhere() {
    RateLimiterFactory strict =
        (name, limits, countRefused) ->
            new EnforcementCoreTest.RejectingCustomKeys(
                KeyedRateLimiter.builder().limits(limits).build(),
                new IllegalArgumentException("cost above this key's cap"));
    EnforcementCore<String> core =
        EnforcementCore.<String>builder()
            .clientKey(q -> RequestKey.address("192.0.2.1", 64))
            .limiterFactory(strict)
            .rule(HttpRule.builder("r").limit(ONE_PER_10S).build(), RequestKey::custom)
            .build();

    List<String> lines =
        logged(
            EnforcementCore.class,
            () -> core.enforce("bad", "CALL", List.of("/m"), QuotaHeaders::new));

    assertThat(lines)
        .containsExactly(
            "WARNING rate limit rule 'r' failed; its limiter could not decide it (an invalid"
                + " argument, not a rejected key); refused, counted nowhere (logged once; later"
                + " failures at DEBUG)");
  }

  @Test
  void composite_listenerThatThrows_isLoggedAsAWarning() {
    RateLimitListener throwing =
        new RateLimitListener() {
          @Override
          public void onRule(HttpRule rule) {
            throw new IllegalStateException("fails");
          }
        };
    RateLimitListener both =
        RateLimitListener.composite(List.of(throwing, new RateLimitListener() {}));
    HttpRule rule = HttpRule.builder("r").limit(ONE_PER_10S).build();
    assertThat(logged(RateLimitListener.class, () -> both.onRule(rule)))
        .containsExactly("WARNING rate limit listener failed");
  }

  @Test
  void logs_refusedPathsDryRunsAndFailures_areWrittenForOperators() {
    List<String> lines = logged(EnforcementCore.class, HttpPartsEdgesTest::refusePathRunDryAndFail);
    assertThat(lines)
        .anyMatch(line -> line.startsWith("FINE request path refused"))
        .anyMatch(line -> line.startsWith("FINE rate limit rule ''{0}'' (dry-run) would refuse"))
        .anyMatch(line -> line.startsWith("WARNING rate limit rule 'broken' failed"));
  }

  private static void refusePathRunDryAndFail() {
    EnforcementCore<String> core =
        EnforcementCore.<String>builder()
            .limiterFactory(RateLimiterFactory.inMemory(new FakeTicker(), 10))
            .rule(
                HttpRule.builder("dry").path("/**").limit(ONE_PER_10S).dryRun(true).build(),
                RequestKey::custom)
            .rule(
                HttpRule.builder("broken").path("/**").limit(ONE_PER_10S).build(),
                request -> {
                  throw new IllegalStateException("no key");
                })
            .build();
    core.checkPath("GET", "/a/../b");
    core.enforce("c", "GET", List.of("/a"), QuotaHeaders::new);
    core.enforce("c", "GET", List.of("/a"), QuotaHeaders::new);
  }

  @Test
  void outcome_headersOfAPass_areEmpty() {
    assertThat(
            EnforcementCore.<String>builder()
                .build()
                .enforce("c", "GET", List.of("/"), QuotaHeaders::new)
                .headers())
        .isEqualTo(Map.of());
  }
}
