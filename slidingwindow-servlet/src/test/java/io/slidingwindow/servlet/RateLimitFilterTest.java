package io.slidingwindow.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Decision;
import io.slidingwindow.Limit;
import io.slidingwindow.http.EnforcementCore;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimitListener;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.testkit.LogCapture;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.text.MessageFormat;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The filter in a real Tomcat on a loopback port, driven by a real HTTP client and a fake clock.
 */
class RateLimitFilterTest {

  private static final long SECOND = 1_000_000_000L;

  @TempDir Path baseDir;

  private final FakeTicker ticker = new FakeTicker(Long.MAX_VALUE - 30 * SECOND);

  private EmbeddedTomcat serve(RateLimitEnforcer.Builder enforcer) throws Exception {
    return new EmbeddedTomcat(
        new RateLimitFilter(
            enforcer.limiterFactory(RateLimiterFactory.inMemory(ticker, 1000)).build()),
        baseDir);
  }

  @Test
  void doFilter_afterNRequests_answers429WithRetryAfterAndProblemBody() throws Exception {
    HttpRule rule =
        HttpRule.builder("product")
            .path("/v1/product/**")
            .limit(Limit.exact(3, Duration.ofSeconds(10)))
            .build();
    try (EmbeddedTomcat server = serve(RateLimitEnforcer.builder().rule(rule))) {
      for (int i = 0; i < 3; i++) {
        HttpResponse<String> ok = server.get("/v1/product/" + i);
        assertThat(ok.statusCode()).isEqualTo(200);
        assertThat(ok.body()).isEqualTo("ok");
        ticker.advance(SECOND);
      }
      HttpResponse<String> refused = server.get("/v1/product/9");
      assertThat(refused.statusCode()).isEqualTo(429);
      // The first grant was 3 s ago; it leaves the 10 s window in 7 s.
      assertThat(refused.headers().firstValue("Retry-After")).hasValue("7");
      assertThat(refused.headers().firstValue("Content-Type").orElseThrow())
          .startsWith("application/problem+json");
      assertThat(refused.body())
          .isEqualTo(
              "{\"type\":\"about:blank\",\"title\":\"Too Many Requests\",\"status\":429,"
                  + "\"detail\":\"Request rate limit exceeded; retry after 7 seconds.\"}");
      assertThat(refused.body()).doesNotContain("product", "127.0.0.1", "10");
      // Headers are off unless asked for.
      assertThat(refused.headers().firstValue("RateLimit")).isEmpty();
      // Paths outside the rule are not limited.
      assertThat(server.get("/v2/other").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void doFilter_retryAfter_isRoundedUpAndNeverEarlierThanTheTrueWait() throws Exception {
    HttpRule rule = HttpRule.builder("r").limit(Limit.exact(2, Duration.ofSeconds(5))).build();
    try (EmbeddedTomcat server = serve(RateLimitEnforcer.builder().rule(rule))) {
      assertThat(server.get("/a").statusCode()).isEqualTo(200); // t = 0
      ticker.advance(2_700_000_000L);
      assertThat(server.get("/a").statusCode()).isEqualTo(200); // t = 2.7 s
      HttpResponse<String> refused = server.get("/a");
      // The true wait is 2.3 s (the grant at 0 leaves at 5 s): rounded up to 3, never down to 2.
      assertThat(refused.statusCode()).isEqualTo(429);
      assertThat(refused.headers().firstValue("Retry-After")).hasValue("3");
      ticker.advance(2_300_000_000L - 1);
      assertThat(server.get("/a").statusCode()).as("1 ns before the true wait").isEqualTo(429);
      ticker.advance(700_000_001L); // exactly Retry-After after the first refusal
      assertThat(server.get("/a").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void doFilter_retryAfterOnManySchedules_isNeverEarly() throws Exception {
    HttpRule rule =
        HttpRule.builder("r")
            .limit(Limit.of(4, Duration.ofMillis(2500)))
            .limit(Limit.of(6, Duration.ofSeconds(7)))
            .build();
    try (EmbeddedTomcat server = serve(RateLimitEnforcer.builder().rule(rule))) {
      long seed = 42;
      java.util.Random random = new java.util.Random(seed);
      int refusals = 0;
      for (int i = 0; i < 120; i++) {
        ticker.advance(random.nextInt(900_000_000));
        HttpResponse<String> response = server.get("/x");
        if (response.statusCode() == 429) {
          refusals++;
          long seconds = Long.parseLong(response.headers().firstValue("Retry-After").orElseThrow());
          assertThat(seconds).isPositive();
          // Rounded up from the true wait, so one second less is short of it: refused (and, in the
          // default mode, not counted).
          ticker.advance((seconds - 1) * SECOND);
          assertThat(server.get("/x").statusCode())
              .as("retry 1 s before Retry-After (seed %d, request %d)", seed, i)
              .isEqualTo(429);
          ticker.advance(SECOND);
          assertThat(server.get("/x").statusCode())
              .as("retry exactly Retry-After later (seed %d, request %d)", seed, i)
              .isEqualTo(200);
        }
      }
      assertThat(refusals).as("the schedule must exercise refusals").isGreaterThan(5);
    }
  }

  @Test
  void doFilter_rateLimitHeaders_followDraft10() throws Exception {
    HttpRule rule =
        HttpRule.builder("product")
            .limit(Limit.exact(3, Duration.ofSeconds(2)))
            .limit(Limit.exact(5, Duration.ofSeconds(10)))
            .build();
    try (EmbeddedTomcat server =
        serve(RateLimitEnforcer.builder().rule(rule).rateLimitHeaders(true))) {
      HttpResponse<String> first = server.get("/p");
      assertThat(first.headers().firstValue("RateLimit-Policy"))
          .hasValue("\"product-2s\";q=3;w=2, \"product-10s\";q=5;w=10");
      assertThat(first.headers().firstValue("RateLimit")).hasValue("\"product-2s\";r=2;t=2");
      server.get("/p");
      HttpResponse<String> third = server.get("/p");
      assertThat(third.headers().firstValue("RateLimit")).hasValue("\"product-2s\";r=0;t=2");
      HttpResponse<String> refused = server.get("/p");
      assertThat(refused.statusCode()).isEqualTo(429);
      assertThat(refused.headers().firstValue("RateLimit")).hasValue("\"product-2s\";r=0;t=2");
      assertThat(refused.headers().firstValue("RateLimit-Policy")).isPresent();

      ticker.advance(2 * SECOND);
      server.get("/p");
      HttpResponse<String> fifth = server.get("/p");
      // Now the 10 s window binds: 5 granted, none left. On a grant t is an upper bound on when
      // more quota comes back: when the last permit counted (just granted) leaves; the first ones
      // (granted at 0) leave sooner, as the refusal below says exactly.
      assertThat(fifth.headers().firstValue("RateLimit")).hasValue("\"product-10s\";r=0;t=10");
      HttpResponse<String> refused10 = server.get("/p");
      assertThat(refused10.statusCode()).isEqualTo(429);
      assertThat(refused10.headers().firstValue("Retry-After")).hasValue("8");
      assertThat(refused10.headers().firstValue("RateLimit")).hasValue("\"product-10s\";r=0;t=8");
    }
  }

  /**
   * A published worked example: threshold 5 per 60 s for one URL, requests at 09:30:20 .. 09:32:46,
   * refused attempts still recorded (its script adds every request to the sorted set).
   */
  private static final long[] SEED_002_TIMES = {
    0, 5, 30, 50, 65, 85, 88, 105, 109, 115, 146 // seconds after 09:30:20
  };

  private List<Integer> replayPublishedExample(boolean countRefusedAttempts) throws Exception {
    HttpRule rule =
        HttpRule.builder("v1-product")
            .path("/v1/product")
            .limit(Limit.of(5, Duration.ofSeconds(60)))
            .countRefusedAttempts(countRefusedAttempts)
            .build();
    List<Integer> statuses = new ArrayList<>();
    try (EmbeddedTomcat server =
        serve(RateLimitEnforcer.builder().rule(rule, KeyResolver.global()))) {
      long previous = 0;
      for (long t : SEED_002_TIMES) {
        ticker.advance((t - previous) * SECOND);
        previous = t;
        statuses.add(server.get("/v1/product").statusCode());
      }
    }
    return statuses;
  }

  @Test
  void doFilter_publishedExampleInPenaltyMode_givesItsStatuses() throws Exception {
    // The example lists requests 1-8 as 200, 9 and 10 as 429, 11 as 200. (It prints request 5 once
    // as 09:31:25 and later as 09:31:22; either time gives the same statuses.)
    assertThat(replayPublishedExample(true))
        .containsExactly(200, 200, 200, 200, 200, 200, 200, 200, 429, 429, 200);
  }

  @Test
  void doFilter_publishedScheduleInDefaultMode_grantsRequest10() throws Exception {
    // Only granted requests count by default. Request 9 (09:32:09) is refused and not recorded, so
    // at request 10 (09:32:15) the window (09:31:15, 09:32:15] holds requests 5, 6, 7 and 8: four
    // grants, below the threshold, and request 10 is granted. The example refuses it because its
    // script records refused attempts too, so request 9 fills the window.
    assertThat(replayPublishedExample(false))
        .containsExactly(200, 200, 200, 200, 200, 200, 200, 200, 429, 200, 200);
  }

  @Test
  void doFilter_spoofedForwardedForFromUntrustedClient_keepsTheClientsKey() throws Exception {
    HttpRule rule =
        HttpRule.builder("per-ip").limit(Limit.exact(2, Duration.ofSeconds(60))).build();
    try (EmbeddedTomcat server =
        serve(
            RateLimitEnforcer.builder()
                .rule(
                    rule,
                    KeyResolver.clientIp(ClientIpResolver.trusting(List.of("10.0.0.0/8")))))) {
      // The test client connects from 127.0.0.1, which is not a trusted proxy.
      assertThat(server.get("/a", "X-Forwarded-For", "198.51.100.1").statusCode()).isEqualTo(200);
      assertThat(server.get("/a", "X-Forwarded-For", "198.51.100.2").statusCode()).isEqualTo(200);
      assertThat(server.get("/a", "X-Forwarded-For", "10.0.0.1, 198.51.100.3").statusCode())
          .isEqualTo(429);
      assertThat(server.get("/a").statusCode()).isEqualTo(429);
    }
  }

  @Test
  void doFilter_forwardedForFromTrustedProxy_keysOnRightMostUntrustedHop() throws Exception {
    HttpRule rule =
        HttpRule.builder("per-ip").limit(Limit.exact(1, Duration.ofSeconds(60))).build();
    try (EmbeddedTomcat server =
        serve(
            RateLimitEnforcer.builder()
                .rule(
                    rule,
                    KeyResolver.clientIp(ClientIpResolver.trusting(List.of("127.0.0.1/32")))))) {
      assertThat(server.get("/a", "X-Forwarded-For", "198.51.100.1").statusCode()).isEqualTo(200);
      assertThat(server.get("/a", "X-Forwarded-For", "198.51.100.2").statusCode()).isEqualTo(200);
      // A client behind the proxy that forges a left-most hop is still keyed on its own address.
      assertThat(server.get("/a", "X-Forwarded-For", "203.0.113.7, 198.51.100.1").statusCode())
          .isEqualTo(429);
      assertThat(server.get("/a", "X-Forwarded-For", "203.0.113.7").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void doFilter_headerKey_limitsEachHeaderValueAndFallsBackToTheAddress() throws Exception {
    HttpRule rule =
        HttpRule.builder("per-key").limit(Limit.exact(1, Duration.ofSeconds(60))).build();
    try (EmbeddedTomcat server =
        serve(
            RateLimitEnforcer.builder()
                .rule(rule, KeyResolver.header("X-Api-Key", ClientIpResolver.direct())))) {
      assertThat(server.get("/a", "X-Api-Key", "alice").statusCode()).isEqualTo(200);
      assertThat(server.get("/a", "X-Api-Key", "alice").statusCode()).isEqualTo(429);
      assertThat(server.get("/a", "X-Api-Key", "bob").statusCode()).isEqualTo(200);
      assertThat(server.get("/a").statusCode()).isEqualTo(200);
      assertThat(server.get("/a").statusCode())
          .as("no header: keyed on the address")
          .isEqualTo(429);
    }
  }

  @Test
  void doFilter_headerValueSpellingAnAddress_cannotDrainThatAddressesQuota() throws Exception {
    HttpRule rule =
        HttpRule.builder("per-key").limit(Limit.exact(2, Duration.ofSeconds(60))).build();
    try (EmbeddedTomcat server =
        serve(
            RateLimitEnforcer.builder()
                .rule(rule, KeyResolver.header("X-Api-Key", ClientIpResolver.direct())))) {
      // Another client (same loopback peer here) spends the quota of keys spelling the address.
      for (String forged : List.of("127.0.0.1", "ip:127.0.0.1", "ip%3A127.0.0.1")) {
        assertThat(server.get("/a", "X-Api-Key", forged).statusCode()).isEqualTo(200);
        assertThat(server.get("/a", "X-Api-Key", forged).statusCode()).isEqualTo(200);
        assertThat(server.get("/a", "X-Api-Key", forged).statusCode()).as(forged).isEqualTo(429);
      }
      // The anonymous client at 127.0.0.1 still has its whole quota.
      assertThat(server.get("/a").statusCode()).isEqualTo(200);
      assertThat(server.get("/a").statusCode()).isEqualTo(200);
      assertThat(server.get("/a").statusCode()).isEqualTo(429);
    }
  }

  @Test
  void doFilter_ipv6ClientRotatingInsideItsPrefix_sharesOneQuota() throws Exception {
    HttpRule rule =
        HttpRule.builder("per-client").limit(Limit.exact(3, Duration.ofSeconds(60))).build();
    try (EmbeddedTomcat server =
        serve(
            RateLimitEnforcer.builder()
                .rule(
                    rule, KeyResolver.clientIp(ClientIpResolver.trusting(List.of("127.0.0.1")))))) {
      for (int i = 1; i <= 3; i++) {
        String hop = "2001:db8:aa:bb:" + Integer.toHexString(i * 4099) + "::" + i;
        assertThat(server.get("/a", "X-Forwarded-For", hop).statusCode()).isEqualTo(200);
      }
      assertThat(server.get("/a", "X-Forwarded-For", "[2001:db8:aa:bb:ffff::]:8443").statusCode())
          .isEqualTo(429);
      assertThat(server.get("/a", "X-Forwarded-For", "2001:db8:aa:bc::1").statusCode())
          .as("the next /64 is another client")
          .isEqualTo(200);
      // The IPv4-mapped form of an address and the address itself are one client.
      for (int i = 0; i < 3; i++) {
        String hop = i % 2 == 0 ? "::ffff:198.51.100.4" : "198.51.100.4";
        assertThat(server.get("/a", "X-Forwarded-For", hop).statusCode()).isEqualTo(200);
      }
      assertThat(server.get("/a", "X-Forwarded-For", "198.51.100.4").statusCode()).isEqualTo(429);
      assertThat(server.get("/a", "X-Forwarded-For", "::ffff:198.51.100.4").statusCode())
          .isEqualTo(429);
    }
  }

  @Test
  void doFilter_dryRun_neverRefusesButReports() throws Exception {
    List<String> events = new CopyOnWriteArrayList<>();
    RateLimitListener listener =
        new RateLimitListener() {
          @Override
          public void onAllowed(HttpRule rule, Decision decision) {
            events.add("allowed");
          }

          @Override
          public void onRefused(HttpRule rule, Decision decision, boolean dryRun) {
            events.add(dryRun ? "refused-dry-run" : "refused");
          }
        };
    HttpRule rule =
        HttpRule.builder("new-rule")
            .limit(Limit.exact(2, Duration.ofSeconds(60)))
            .dryRun(true)
            .build();
    try (EmbeddedTomcat server =
        serve(RateLimitEnforcer.builder().rule(rule).listener(listener).rateLimitHeaders(true))) {
      for (int i = 0; i < 4; i++) {
        HttpResponse<String> response = server.get("/a");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Retry-After")).isEmpty();
        if (i >= 2) {
          assertThat(response.headers().firstValue("RateLimit")).hasValue("\"new-rule\";r=0;t=60");
        }
      }
    }
    assertThat(events).containsExactly("allowed", "allowed", "refused-dry-run", "refused-dry-run");
  }

  @Test
  void doFilter_methodsAndPaths_limitOnlyMatchingRequests() throws Exception {
    HttpRule rule =
        HttpRule.builder("writes")
            .path("/orders/**")
            .methods("post", "PUT")
            .limit(Limit.exact(1, Duration.ofSeconds(60)))
            .build();
    try (EmbeddedTomcat server = serve(RateLimitEnforcer.builder().rule(rule))) {
      assertThat(server.send("POST", "/orders/1").statusCode()).isEqualTo(200);
      assertThat(server.send("PUT", "/orders/2").statusCode()).isEqualTo(429);
      assertThat(server.send("GET", "/orders/3").statusCode()).isEqualTo(200);
      assertThat(server.send("POST", "/carts/1").statusCode()).isEqualTo(200);
      // A trailing slash does not escape the rule; a doubled one is refused by the path firewall
      // (PathSpellingTest shows that it is counted with the firewall off).
      assertThat(server.send("POST", "/orders/7/").statusCode()).isEqualTo(429);
      assertThat(server.send("POST", "/orders//7/").statusCode()).isEqualTo(400);
    }
  }

  @Test
  void doFilter_laterRuleRefuses_earlierRuleWasChargedLaterRulesNot() throws Exception {
    HttpRule global =
        HttpRule.builder("global").limit(Limit.exact(3, Duration.ofSeconds(60))).build();
    HttpRule strict =
        HttpRule.builder("strict")
            .path("/strict")
            .limit(Limit.exact(1, Duration.ofSeconds(60)))
            .build();
    try (EmbeddedTomcat server =
        serve(RateLimitEnforcer.builder().rule(global, KeyResolver.global()).rule(strict))) {
      assertThat(server.get("/strict").statusCode()).isEqualTo(200); // global 1, strict 1
      assertThat(server.get("/strict").statusCode()).isEqualTo(429); // global 2, strict refused
      assertThat(server.get("/other").statusCode()).isEqualTo(200); // global 3
      assertThat(server.get("/other").statusCode()).isEqualTo(429); // global refused
    }
  }

  @Test
  void doFilter_laterRuleRefusesAfterEarlierRuleRanOut_retryAfterCoversTheEarlierRule()
      throws Exception {
    HttpRule site = HttpRule.builder("site").limit(Limit.exact(2, Duration.ofSeconds(10))).build();
    HttpRule x =
        HttpRule.builder("x").path("/x").limit(Limit.exact(1, Duration.ofSeconds(4))).build();
    try (EmbeddedTomcat server =
        serve(
            RateLimitEnforcer.builder()
                .rule(site, KeyResolver.global())
                .rule(x)
                .rateLimitHeaders(true))) {
      assertThat(server.get("/x").statusCode()).isEqualTo(200); // site 1 of 2, x 1 of 1
      HttpResponse<String> refused = server.get("/x"); // site 2 of 2 (counted), x refuses for 4 s
      assertThat(refused.statusCode()).isEqualTo(429);
      // x alone would say 4, but at 4 s site still counts both requests until 10 s.
      assertThat(refused.headers().firstValue("Retry-After")).hasValue("10");
      assertThat(refused.headers().firstValue("RateLimit"))
          .hasValue("\"site\";r=0;t=10, \"x\";r=0;t=4");
      ticker.advance(9 * SECOND);
      assertThat(server.get("/x").statusCode()).as("1 s before Retry-After").isEqualTo(429);
      ticker.advance(SECOND);
      assertThat(server.get("/x").statusCode()).as("at Retry-After").isEqualTo(200);
    }
  }

  @Test
  void doFilter_earlierRuleRanOutOnTwoLimits_retryAfterCoversTheLongerOne() throws Exception {
    HttpRule site =
        HttpRule.builder("site")
            .limit(Limit.exact(2, Duration.ofSeconds(2)))
            .limit(Limit.exact(3, Duration.ofSeconds(10)))
            .build();
    HttpRule x =
        HttpRule.builder("x").path("/x").limit(Limit.exact(1, Duration.ofSeconds(4))).build();
    try (EmbeddedTomcat server =
        serve(RateLimitEnforcer.builder().rule(site, KeyResolver.global()).rule(x))) {
      assertThat(server.get("/x").statusCode()).isEqualTo(200); // t = 0
      ticker.advance(2_500_000_000L);
      assertThat(server.get("/y").statusCode()).isEqualTo(200); // t = 2.5
      // site runs out of both limits (2 in 2 s, 3 in 10 s) and reports the 2 s one, which resets
      // in 2 s; x refuses for 1.5 s. The 10 s limit keeps refusing until t = 10, 7.5 s from now.
      HttpResponse<String> refused = server.get("/x");
      assertThat(refused.statusCode()).isEqualTo(429);
      long seconds = Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow());
      assertThat(seconds).as("never early").isGreaterThanOrEqualTo(8);
      ticker.advance(7_500_000_000L - 1);
      assertThat(server.get("/x").statusCode()).as("1 ns before the true wait").isEqualTo(429);
      ticker.advance(seconds * SECOND - 7_500_000_000L + 1);
      assertThat(server.get("/x").statusCode()).as("at Retry-After").isEqualTo(200);
    }
  }

  @Test
  void doFilter_dryRunWouldRefuse_logsAtDebugNotInfo() throws Exception {
    HttpRule rule =
        HttpRule.builder("trial")
            .limit(Limit.exact(1, Duration.ofSeconds(60)))
            .dryRun(true)
            .build();
    List<LogRecord> records;
    try (LogCapture log = LogCapture.of(EnforcementCore.class.getName())) {
      try (EmbeddedTomcat server = serve(RateLimitEnforcer.builder().rule(rule))) {
        assertThat(server.get("/a").statusCode()).isEqualTo(200);
        assertThat(server.get("/a").statusCode()).isEqualTo(200);
      }
      records = log.records();
    }
    assertThat(records).hasSize(1);
    assertThat(records.get(0).getLevel()).isEqualTo(Level.FINE);
    assertThat(MessageFormat.format(records.get(0).getMessage(), records.get(0).getParameters()))
        .isEqualTo("rate limit rule 'trial' (dry-run) would refuse GET /a; retry after 60 s");
  }

  @Test
  void doFilter_headOnGetRule_isCountedAsGet() throws Exception {
    HttpRule rule =
        HttpRule.builder("reads")
            .methods("GET")
            .limit(Limit.exact(2, Duration.ofSeconds(60)))
            .build();
    try (EmbeddedTomcat server = serve(RateLimitEnforcer.builder().rule(rule))) {
      assertThat(server.send("HEAD", "/a").statusCode()).isEqualTo(200);
      assertThat(server.get("/a").statusCode()).isEqualTo(200);
      assertThat(server.send("HEAD", "/a").statusCode()).isEqualTo(429);
      assertThat(server.send("POST", "/a").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void doFilter_limiterFails_letsTheRequestThroughAndReportsTheError() throws Exception {
    List<String> errors = new CopyOnWriteArrayList<>();
    RateLimiterFactory broken =
        (name, limits, countRefused) ->
            new io.slidingwindow.KeyedRateLimiter<>() {
              @Override
              public boolean tryAcquire(String key, long permits) {
                throw new IllegalStateException("backend down");
              }

              @Override
              public Decision decide(String key, long permits) {
                throw new IllegalStateException("backend down");
              }

              @Override
              public List<Limit> limits() {
                return limits;
              }
            };
    HttpRule rule = HttpRule.builder("r").limit(Limit.exact(1, Duration.ofSeconds(60))).build();
    RateLimitListener listener =
        new RateLimitListener() {
          @Override
          public void onError(HttpRule r, RuntimeException error) {
            errors.add(r.name() + ": " + error.getMessage());
          }
        };
    try (EmbeddedTomcat server =
        new EmbeddedTomcat(
            new RateLimitFilter(
                RateLimitEnforcer.builder()
                    .rule(rule)
                    .limiterFactory(broken)
                    .listener(listener)
                    .build()),
            baseDir)) {
      assertThat(server.get("/a").statusCode()).isEqualTo(200);
      assertThat(server.get("/a").statusCode()).isEqualTo(200);
    }
    assertThat(errors).containsExactly("r: backend down", "r: backend down");
  }
}
