package io.slidingwindow.server.decide;

import static io.slidingwindow.server.decide.TestRequest.descriptor;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.slidingwindow.FailurePolicy;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Ticker;
import io.slidingwindow.server.ConfigException;
import io.slidingwindow.server.config.Configs;
import io.slidingwindow.server.config.RateLimitConfig;
import io.slidingwindow.server.config.TimeUnitName;
import io.slidingwindow.server.decide.Decisions.BadRequest;
import io.slidingwindow.server.decide.Decisions.Code;
import io.slidingwindow.server.decide.Decisions.Outcome;
import io.slidingwindow.server.decide.Decisions.Verdict;
import io.slidingwindow.server.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitRequest;
import io.slidingwindow.server.grpc.ProtobufRequest;
import io.slidingwindow.server.settings.Settings;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.testkit.LogCapture;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class OverrideLimitsTest {

  private static final String CONFIG =
      """
      domain: %s
      descriptors:
        - key: user
          rate_limit: {unit: minute, requests_per_unit: 2}
      """;

  private final FakeTicker ticker = new FakeTicker();
  private LogCapture capture;

  @AfterEach
  void releaseWarnings() {
    if (capture != null) {
      capture.close();
    }
  }

  private Decider decider(boolean overrides, int perDomain) throws ConfigException {
    RateLimitConfig config = Configs.parse(CONFIG.formatted("a"));
    return new Decider(
        config,
        new MemoryStore(ticker),
        new Settings.Requests(overrides, perDomain, 10, 1000, 1000),
        ticker);
  }

  private static TestRequest.Descriptor override(String user, long requests) {
    return override(user, requests, TimeUnitName.SECOND);
  }

  private static TestRequest.Descriptor override(String user, long requests, TimeUnitName unit) {
    return descriptor("user", user).override(requests, unit);
  }

  @Test
  void decide_overridesOff_theConfigurationDecides() throws ConfigException {
    Decider decider = decider(false, 16);

    for (int i = 0; i < 2; i++) {
      assertThat(decider.decide(TestRequest.of("a", override("u", 1000))).overall())
          .isEqualTo(Code.OK);
    }
    Decisions.Verdict third = decider.decide(TestRequest.of("a", override("u", 1000)));
    assertThat(third.overall()).isEqualTo(Code.OVER_LIMIT);
    assertThat(third.status(0).tag()).isEqualTo("user");
  }

  @Test
  void decide_overrideCountsApartFromTheRule() throws ConfigException {
    Decider decider = decider(true, 16);

    for (int i = 0; i < 3; i++) {
      assertThat(decider.decide(TestRequest.of("a", override("u", 3))).overall())
          .isEqualTo(Code.OK);
    }
    assertThat(decider.decide(TestRequest.of("a", override("u", 3))).overall())
        .isEqualTo(Code.OVER_LIMIT);
    assertThat(decider.decide(TestRequest.of("a", descriptor("user", "u"))).overall())
        .as("the configured rule's count is untouched")
        .isEqualTo(Code.OK);
  }

  /**
   * What docs/server.md warns of: an override replaces the configuration, a rule that refuses
   * everything too, and each distinct limit counts the descriptor apart.
   */
  @Test
  void decide_anOverride_replacesEvenARefusingRule_andEachLimitCountsApart()
      throws ConfigException {
    Decider decider =
        TestRequest.decider(
            Configs.parse(
                "domain: a\ndescriptors:\n  - key: user\n"
                    + "    rate_limit: {unit: second, requests_per_unit: 0}\n"),
            ticker,
            1000);
    assertThat(decider.decide(TestRequest.of("a", descriptor("user", "u"))).overall())
        .isEqualTo(Code.OVER_LIMIT);

    assertThat(decider.decide(TestRequest.of("a", override("u", 1))).overall()).isEqualTo(Code.OK);
    assertThat(decider.decide(TestRequest.of("a", override("u", 1))).overall())
        .isEqualTo(Code.OVER_LIMIT);
    assertThat(decider.decide(TestRequest.of("a", override("u", 2))).status(0).remaining())
        .as("another limit, another count")
        .isEqualTo(1);
  }

  /**
   * A new limit in a full domain is answered OVER_LIMIT for its descriptor alone, once warned and
   * counted as bad_override: failing the call would let Envoy pass the whole request uncounted.
   */
  @Test
  void decide_domainFullOfOverridesInUse_refusesNewOnesUntilOneIsIdleForItsWindow()
      throws ConfigException {
    Decider decider = decider(true, 4);
    for (int limit = 1; limit <= 4; limit++) {
      decider.decide(TestRequest.of("a", override("u", limit)));
    }
    captureWarnings();

    Verdict full = decider.decide(TestRequest.of("a", override("u", 5)));
    assertThat(full.overall()).isEqualTo(Code.OVER_LIMIT);
    assertThat(full.status(0).outcome()).isEqualTo(Outcome.BAD_OVERRIDE);
    assertThat(full.status(0).limit().requestsPerUnit()).isEqualTo(5);
    Verdict mixed = decider.decide(TestRequest.of("a", override("u", 6), descriptor("user", "w")));
    assertThat(mixed.status(0).outcome()).isEqualTo(Outcome.BAD_OVERRIDE);
    assertThat(mixed.status(1).outcome())
        .as("the other descriptor is decided")
        .isEqualTo(Outcome.OK);
    assertThat(warnings())
        .singleElement()
        .satisfies(
            m -> assertThat(m).contains("holds 4 distinct descriptor limit overrides in use"))
        .satisfies(m -> assertThat(m).contains("answered OVER_LIMIT"));
    assertThat(decider.decide(TestRequest.of("a", override("u", 4))).overall())
        .as("a limit it holds still answers")
        .isIn(Code.OK, Code.OVER_LIMIT);
    assertThat(decider.decide(TestRequest.of("a", descriptor("user", "v"))).overall())
        .as("configured rules never wait for overrides")
        .isEqualTo(Code.OK);

    ticker.advance(Duration.ofMillis(1500));
    assertThat(decider.decide(TestRequest.of("a", override("u", 5))).overall())
        .as("limits unused for their window made room")
        .isEqualTo(Code.OK);
  }

  /**
   * In memory a limit's counts live only in its limiter, so a limit of a year keeps its place in a
   * full table for as long as it counts: were it let go after a minute, a caller could churn limits
   * to reset its count. A new limit is refused, with the bound and its setting, and the counts of
   * the year hold. (On Redis, where the counts stay in the store, one unused for a minute makes
   * room: OverrideEvictionIT.)
   */
  @Test
  void decide_inMemoryDomainFullOfYearLimits_refusesNewOnes_andTheirCountsHold()
      throws ConfigException {
    Decider decider = decider(true, 4);
    for (int limit = 1; limit <= 4; limit++) {
      assertThat(
              decider
                  .decide(TestRequest.of("a", override("u", limit, TimeUnitName.YEAR)))
                  .overall())
          .isEqualTo(Code.OK);
    }
    ticker.advance(Duration.ofSeconds(30));
    assertThat(decider.decide(TestRequest.of("a", override("u", 1, TimeUnitName.YEAR))).overall())
        .as("used again now, and its count holds")
        .isEqualTo(Code.OVER_LIMIT);

    ticker.advance(Duration.ofSeconds(31));
    captureWarnings();
    assertThat(decider.decide(TestRequest.of("a", override("u", 5))).status(0).outcome())
        .as("limits of a year unused for 61 s still hold the table")
        .isEqualTo(Outcome.BAD_OVERRIDE);
    assertThat(warnings())
        .singleElement()
        .satisfies(
            m -> assertThat(m).contains("holds 4 distinct descriptor limit overrides in use"))
        .satisfies(
            m -> assertThat(m).contains("--max-override-limits, SLIDINGWINDOW_MAX_OVERRIDE_LIMITS"))
        .satisfies(m -> assertThat(m).contains("once unused for its window"))
        .satisfies(m -> assertThat(m).doesNotContain("60 s"));
    assertThat(decider.decide(TestRequest.of("a", override("u", 1, TimeUnitName.YEAR))).overall())
        .isEqualTo(Code.OVER_LIMIT);
    for (int limit = 2; limit <= 4; limit++) {
      assertThat(
              decider
                  .decide(TestRequest.of("a", override("u", limit, TimeUnitName.YEAR)))
                  .status(0)
                  .remaining())
          .as("the limit of %s a year still counts the grant of 61 s ago", limit)
          .isEqualTo(limit - 2);
    }
  }

  @Test
  void decide_overrideKeys_boundedApartFromTheRulesKeys() throws ConfigException {
    Decider decider = decider(true, 16); // at most 10 keys per override limit

    for (int user = 0; user < 10; user++) {
      assertThat(decider.decide(TestRequest.of("a", override("u" + user, 5))).overall())
          .isEqualTo(Code.OK);
    }
    assertThat(decider.decide(TestRequest.of("a", override("u-new", 5))).overall())
        .isEqualTo(Code.OVER_LIMIT);
    assertThat(decider.decide(TestRequest.of("a", descriptor("user", "u-new"))).overall())
        .isEqualTo(Code.OK);
  }

  /**
   * A limit without a unit cannot be counted: its descriptor alone is answered OVER_LIMIT, the
   * other descriptors are decided, and a WARNING says so at most once a minute per domain. It
   * failed the whole call with INVALID_ARGUMENT before, which Envoy takes as leave to pass.
   */
  @Test
  void decide_overrideWithoutAUnit_overLimitForItsDescriptorAlone_warnedOnceAMinute()
      throws ConfigException {
    Decider decider = decider(true, 16);
    captureWarnings();

    for (int i = 0; i < 3; i++) {
      Verdict verdict =
          decider.decide(
              TestRequest.of(
                  "a", override("u", 100, TimeUnitName.UNKNOWN), descriptor("user", "v")));
      assertThat(verdict.overall()).isEqualTo(Code.OVER_LIMIT);
      assertThat(verdict.status(0).outcome()).isEqualTo(Outcome.BAD_OVERRIDE);
      assertThat(verdict.status(0).limit().unit()).isEqualTo(TimeUnitName.UNKNOWN);
      assertThat(verdict.status(1).outcome())
          .isEqualTo(i < 2 ? Outcome.OK : Outcome.OVER_LIMIT); // 2 a minute: it was counted
    }
    assertThat(
            decider
                .decide(TestRequest.of("a", override("u", 100, TimeUnitName.UNKNOWN)))
                .status(0)
                .outcome())
        .as("alone, on the path of one descriptor")
        .isEqualTo(Outcome.BAD_OVERRIDE);
    assertThat(warnings()).hasSize(1);
    assertThat(warnings().get(0)).contains("domain 'a'").contains("without a unit");
    ticker.advance(Duration.ofSeconds(61));
    decider.decide(TestRequest.of("a", override("u", 100, TimeUnitName.UNKNOWN)));
    assertThat(warnings()).hasSize(2);
  }

  /**
   * A unit a newer Envoy numbers but this build does not know is read as UNKNOWN: the warning names
   * its number, not "without a unit", which sent operators to look for a limit that had none.
   */
  @Test
  void decide_overrideOfAUnitNumberUnknownHere_warningNamesTheNumber() throws ConfigException {
    Decider decider = decider(true, 16);
    captureWarnings();
    RateLimitRequest request =
        RateLimitRequest.newBuilder()
            .setDomain("a")
            .addDescriptors(
                RateLimitDescriptor.newBuilder()
                    .addEntries(RateLimitDescriptor.Entry.newBuilder().setKey("user").setValue("u"))
                    .setLimit(
                        RateLimitDescriptor.RateLimitOverride.newBuilder()
                            .setRequestsPerUnit(10)
                            .setUnitValue(9)))
            .build();

    Verdict verdict = decider.decide(new ProtobufRequest(request));

    assertThat(verdict.status(0).outcome()).isEqualTo(Outcome.BAD_OVERRIDE);
    assertThat(warnings())
        .singleElement()
        .satisfies(m -> assertThat(m).contains("domain 'a'").contains("unit number 9"))
        .satisfies(m -> assertThat(m).doesNotContain("without a unit"));
  }

  /** In memory a failure policy has no effect: a reload that changes it keeps the counts. */
  @Test
  void apply_policyChangedInMemory_overrideKeepsItsCounts() throws ConfigException {
    Decider decider = decider(true, 16);
    for (int i = 0; i < 2; i++) {
      assertThat(decider.decide(TestRequest.of("a", override("u", 2))).overall())
          .isEqualTo(Code.OK);
    }

    decider.apply(Configs.parse("failure_policy: refuse\n" + CONFIG.formatted("a")));

    assertThat(decider.decide(TestRequest.of("a", override("u", 2))).overall())
        .isEqualTo(Code.OVER_LIMIT);
  }

  /**
   * What docs/server.md promises of refusals by a full table: a WARNING at most once a minute per
   * domain, so that a caller who keeps sending new limits cannot flood the log.
   */
  @Test
  void limiter_fullTableRefusesAgainAndAgain_warnsAtMostOnceAMinutePerDomain() {
    OverrideLimits limits = new OverrideLimits(new MemoryStore(ticker), 2, 10, ticker);
    for (String domain : List.of("a", "b")) {
      limits.limiter(domain, Limit.of(1, Duration.ofHours(1)), FailurePolicy.LOCAL);
      limits.limiter(domain, Limit.of(2, Duration.ofHours(1)), FailurePolicy.LOCAL);
    }
    captureWarnings();

    refuse(limits, "a", 3);
    ticker.advance(Duration.ofSeconds(59));
    refuse(limits, "a", 4);
    assertThat(warnings()).as("two refusals within 59 s").hasSize(1);
    refuse(limits, "b", 3);
    assertThat(warnings()).as("another domain is warned of apart").hasSize(2);

    ticker.advance(Duration.ofSeconds(2));
    refuse(limits, "a", 5);

    assertThat(warnings()).hasSize(3);
    assertThat(warnings())
        .allSatisfy(m -> assertThat(m).contains("a descriptor with a new limit was refused"))
        .satisfiesExactly(
            m -> assertThat(m).startsWith("domain 'a' holds 2"),
            m -> assertThat(m).startsWith("domain 'b' holds 2"),
            m -> assertThat(m).as("61 s after the first").startsWith("domain 'a' holds 2"));
  }

  private static void refuse(OverrideLimits limits, String domain, long permits) {
    assertThatThrownBy(
            () ->
                limits.limiter(domain, Limit.of(permits, Duration.ofHours(1)), FailurePolicy.LOCAL))
        .isInstanceOf(BadRequest.class)
        .hasMessageContaining("holds 2 distinct descriptor limit overrides in use");
  }

  /** Captures OverrideLimits' log records from now until the test ends. */
  private void captureWarnings() {
    capture = LogCapture.of(OverrideLimits.class.getName());
  }

  /** The messages of the WARNINGs captured so far. */
  private List<String> warnings() {
    return capture.messages(Level.WARNING);
  }

  /** A clock may read any value, the one eviction leaves as its mark included. */
  @Test
  void limiter_clockAtLongMinValue_isHandedOutAgain() {
    Ticker frozen = () -> Long.MIN_VALUE;
    OverrideLimits limits = new OverrideLimits(new MemoryStore(frozen), 1, 10, frozen);
    Limit limit = Limit.of(1, Duration.ofSeconds(1));

    KeyedRateLimiter<String> first = limits.limiter("a", limit, FailurePolicy.REFUSE);
    KeyedRateLimiter<String> again =
        assertTimeoutPreemptively(
            Duration.ofSeconds(10), () -> limits.limiter("a", limit, FailurePolicy.REFUSE));

    assertThat(again).isSameAs(first);
  }
}
