package io.slidingwindow.server.config;

import static io.slidingwindow.server.decide.TestRequest.descriptor;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.Limit;
import io.slidingwindow.server.ConfigException;
import io.slidingwindow.server.decide.Decider;
import io.slidingwindow.server.decide.Decisions.Code;
import io.slidingwindow.server.decide.Decisions.Outcome;
import io.slidingwindow.server.decide.Decisions.Verdict;
import io.slidingwindow.server.decide.TestRequest;
import io.slidingwindow.testkit.FakeTicker;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConfigParserTest {

  @Test
  void parse_envoyRatelimitFiles_loadUnchanged() throws ConfigException {
    RateLimitConfig config =
        Configs.resources("envoy-config/messaging.yaml", "envoy-config/edge.yaml");

    assertThat(config.domains()).containsExactly("edge_proxy", "messaging");
    Rule marketing =
        match(config, "messaging", "message_type", "marketing", "to_number", "2061111111");
    assertThat(marketing.path()).isEqualTo("message_type_marketing.to_number");
    assertThat(marketing.limits()).containsExactly(Limit.of(5, Duration.ofDays(1)));
    assertThat(marketing.source()).isEqualTo("envoy-config/messaging.yaml line 10");
    assertThat(match(config, "messaging", "sender", "internal").kind())
        .isEqualTo(Rule.Kind.UNLIMITED);
    assertThat(match(config, "edge_proxy", "remote_address", "50.0.0.5").kind())
        .isEqualTo(Rule.Kind.BLOCKED);
  }

  @Test
  void parse_bundledSampleConfig_loads() throws ConfigException {
    RateLimitConfig config = Configs.resources("io/slidingwindow/server/sample-config.yaml");

    assertThat(config.domains()).containsExactly("demo");
    assertThat(match(config, "demo", "api", "v1", "user", "alice").limits())
        .containsExactly(
            Limit.of(5, Duration.ofSeconds(10)), Limit.of(100, Duration.ofSeconds(90)));
  }

  @Test
  void parse_failurePolicy_namesOfCoreAndTheOlderOnes_localByDefault() throws ConfigException {
    String rules =
        "descriptors:\n  - key: a\n    rate_limit: {unit: second, requests_per_unit: 1}\n";
    String[][] cases = {
      {"", "LOCAL"},
      {"failure_policy: local\n", "LOCAL"},
      {"failure_policy: allow\n", "ALLOW"},
      {"failure_policy: refuse\n", "REFUSE"},
      {"failure_policy: open\n", "ALLOW"},
      {"failure_policy: closed\n", "REFUSE"}
    };
    for (String[] c : cases) {
      RateLimitConfig config = Configs.parse("domain: d\n" + c[0] + rules);
      assertThat(config.failurePolicy("d").name()).as(c[0]).isEqualTo(c[1]);
      assertThat(match(config, "d", "a", "x").failurePolicy().name()).isEqualTo(c[1]);
    }
    assertFault(
        "domain: d\nfailure_policy: sometimes\n" + rules,
        "test.yaml line 2: failure_policy must be local, allow or refuse, was 'sometimes'");
  }

  @Test
  void match_keyAndValue_isPreferredToKeyAlone() throws ConfigException {
    RateLimitConfig config = Configs.resources("envoy-config/edge.yaml");

    assertThat(match(config, "edge_proxy", "remote_address", "50.0.0.5").path())
        .isEqualTo("remote_address_50.0.0.5");
    assertThat(match(config, "edge_proxy", "remote_address", "50.0.0.1").path())
        .isEqualTo("remote_address");
  }

  @Test
  void match_descriptorDeeperOrShallowerThanTheRule_matchesNothing() throws ConfigException {
    RateLimitConfig config = Configs.resources("envoy-config/messaging.yaml");

    assertThat(config.match("messaging", new OneDescriptor("message_type", "marketing"), 0))
        .isNull();
    assertThat(
            config.match(
                "messaging", new OneDescriptor("to_number", "2061111111", "extra", "x"), 0))
        .isNull();
    assertThat(config.match("other", new OneDescriptor("to_number", "1"), 0)).isNull();
  }

  @Test
  void match_wildcardValues_matchAnyTextAtTheStar() throws ConfigException {
    RateLimitConfig config = Configs.resources("envoy-config/edge.yaml");

    assertThat(match(config, "edge_proxy", "path", "/api/123/action").path())
        .isEqualTo("path_/api/*/action");
    assertThat(config.match("edge_proxy", new OneDescriptor("path", "/api/123/other"), 0)).isNull();
    Rule shared = match(config, "edge_proxy", "files", "files/a.pdf");
    assertThat(shared.countedValue(0, "files/a.pdf")).isEqualTo("files/*");
    Rule own = match(config, "edge_proxy", "path", "/api/9/action");
    assertThat(own.countedValue(0, "/api/9/action")).isEqualTo("/api/9/action");
  }

  @Test
  void parse_extensions_giveSlidingWindowsOfAnyLengthAndSeveralLimits() throws ConfigException {
    RateLimitConfig config =
        Configs.parse(
            """
            domain: api
            descriptors:
              - key: user
                rate_limit:
                  requests_per_unit: 3
                  window: 1500ms
                  precision: 10ms
                rate_limits:
                  - requests: 100
                    window: 90s
                  - requests: 1000
                    window: PT1H30M
            """);

    assertThat(match(config, "api", "user", "u1").limits())
        .containsExactly(
            Limit.of(3, Duration.ofMillis(1500)).withPrecision(Duration.ofMillis(10)),
            Limit.of(100, Duration.ofSeconds(90)),
            Limit.of(1000, Duration.ofMinutes(90)));
  }

  @Test
  void parse_badUnit_namesFileAndLine() {
    assertThatThrownBy(
            () ->
                Configs.parse(
                    """
                    domain: api
                    descriptors:
                      - key: user
                        rate_limit:
                          unit: fortnight
                          requests_per_unit: 3
                    """))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "test.yaml line 5: invalid rate limit unit 'fortnight'; use second, minute, hour, day,"
                + " week, month or year");
  }

  @Test
  void parse_faults_nameTheirLine() {
    assertFault(
        """
        domain: d
        descriptors:
          - key: a
            rate_limit:
              unit: second
              requests_per_unit: ten
        """,
        "test.yaml line 6: requests_per_unit must be a whole number from 0 to 4294967295, was"
            + " 'ten'");
    assertFault(
        "domain: d\ndescriptors:\n  - key: a\n    colour: red\n",
        "test.yaml line 4: unknown key 'colour' in a descriptor; allowed:");
    assertFault("domain: d\ndescriptors:\n  - value: x\n", "test.yaml line 3: key is missing");
    assertFault(
        "domain: d\ndescriptors:\n  - key: a\n  - key: a\n",
        "test.yaml line 4: descriptor 'a' is defined twice at this level");
    assertFault(
        """
        domain: d
        descriptors:
          - key: a
            rate_limits:
              - requests: 5
                window: soon
        """,
        "test.yaml line 6: window must be a duration such as 500ms, 90s, 5m, 1h, 1d or PT1M30S,"
            + " was 'soon'");
    assertFault(
        """
        domain: d
        descriptors:
          - key: a
            rate_limit:
              unlimited: true
              unit: second
        """,
        "test.yaml line 6: an unlimited rate_limit has no unit");
    assertFault(
        """
        domain: d
        descriptors:
          - key: a
            rate_limit:
              name: n
              replaces:
                - name: n
              unit: second
              requests_per_unit: 1
        """,
        "test.yaml line 7: replaces should not contain the name of its own rate_limit, 'n'");
    assertFault(
        "domain: d\ndescriptors:\n  - key: a\n    value: b\n    share_threshold: true\n",
        "test.yaml line 5: share_threshold needs a value with a '*' wildcard");
    assertFault("domain: d\ndescriptors:\n  - key: [a\n", "test.yaml line 4:");
    assertFault("descriptors: []\n", "test.yaml line 1: domain is missing");
    assertFault("", "test.yaml: the file is empty");
  }

  @Test
  void parse_replacesInACycle_isRefusedNamingEveryRuleOfIt() {
    assertFault(
        """
        domain: d
        descriptors:
          - key: a
            rate_limit: {name: ra, replaces: [{name: rb}], unit: second, requests_per_unit: 1}
          - key: b
            rate_limit: {name: rb, replaces: [{name: ra}], unit: second, requests_per_unit: 1}
        """,
        "test.yaml line 4: replaces form a cycle, so a request matching all of its rules is"
            + " counted by none: 'ra' (test.yaml line 4) replaces 'rb', 'rb' (test.yaml line 6)"
            + " replaces 'ra'; break the cycle");
    // Through a third rule, and with a rule of the cycle replacing one outside it too.
    assertFault(
        """
        domain: d
        descriptors:
          - key: a
            rate_limit: {name: ra, replaces: [{name: rb}], unit: second, requests_per_unit: 1}
          - key: b
            rate_limit: {name: rb, replaces: [{name: rx}, {name: rc}], unit: second, requests_per_unit: 1}
          - key: c
            rate_limit: {name: rc, replaces: [{name: ra}], unit: second, requests_per_unit: 1}
          - key: x
            rate_limit: {name: rx, unit: second, requests_per_unit: 1}
        """,
        "test.yaml line 4: replaces form a cycle, so a request matching all of its rules is"
            + " counted by none: 'ra' (test.yaml line 4) replaces 'rb', 'rb' (test.yaml line 6)"
            + " replaces 'rc', 'rc' (test.yaml line 8) replaces 'ra'");
    // Two rules of one name: the one replacing the other's replacer closes a cycle.
    assertFault(
        """
        domain: d
        descriptors:
          - key: a
            rate_limit: {name: shared, unit: second, requests_per_unit: 1}
          - key: b
            rate_limit: {name: other, replaces: [{name: shared}], unit: second, requests_per_unit: 1}
          - key: c
            rate_limit: {name: shared, replaces: [{name: other}], unit: second, requests_per_unit: 1}
        """,
        "test.yaml line 6: replaces form a cycle");
  }

  @Test
  void parse_replacesInAChainOrFromSeveralRules_loads() throws ConfigException {
    RateLimitConfig config =
        Configs.parse(
            """
            domain: d
            descriptors:
              - key: a
                rate_limit: {name: ra, replaces: [{name: rb}, {name: rc}], unit: second, requests_per_unit: 1}
              - key: b
                rate_limit: {name: rb, replaces: [{name: rc}], unit: second, requests_per_unit: 1}
              - key: c
                rate_limit: {name: rc, replaces: [{name: elsewhere}], unit: second, requests_per_unit: 1}
              - key: e
                rate_limit: {name: re, replaces: [{name: rc}], unit: second, requests_per_unit: 1}
            """);

    assertThat(match(config, "d", "c", "1").replaces()).containsExactly("elsewhere");
    // Decided: the heads of the chain (ra, re) count; rb and rc, replaced, count nothing.
    Decider decider = TestRequest.decider(config, new FakeTicker(), 1000);
    TestRequest all =
        TestRequest.of(
            "d",
            descriptor("a", "1"),
            descriptor("b", "1"),
            descriptor("c", "1"),
            descriptor("e", "1"));
    Verdict first = decider.decide(all);
    Verdict second = decider.decide(all);
    assertThat(first.overall()).isEqualTo(Code.OK);
    assertThat(List.of(0, 1, 2, 3).stream().map(d -> first.status(d).outcome()))
        .containsExactly(Outcome.OK, Outcome.UNMATCHED, Outcome.UNMATCHED, Outcome.OK);
    assertThat(List.of(0, 1, 2, 3).stream().map(d -> second.status(d).outcome()))
        .containsExactly(
            Outcome.OVER_LIMIT, Outcome.UNMATCHED, Outcome.UNMATCHED, Outcome.OVER_LIMIT);
    for (String key : List.of("b", "c")) {
      assertThat(decider.decide(TestRequest.of("d", descriptor(key, "1"))).status(0).outcome())
          .as("%s alone, never counted while replaced", key)
          .isEqualTo(Outcome.OK);
    }
  }

  @Test
  void parse_sameDomainInTwoFiles_isRefused() {
    assertThatThrownBy(
            () ->
                ConfigParser.parse(
                    List.of(
                        new ConfigParser.Source("a.yaml", "domain: d\n"),
                        new ConfigParser.Source("b.yaml", "\ndomain: d\n"))))
        .hasMessage("b.yaml line 2: domain 'd' is defined twice");
  }

  private static void assertFault(String yaml, String messageStart) {
    assertThatThrownBy(() -> Configs.parse(yaml))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(messageStart);
  }

  private static Rule match(RateLimitConfig config, String domain, String... pairs) {
    Rule rule = config.match(domain, new OneDescriptor(pairs), 0);
    assertThat(rule).as("match for %s", List.of(pairs)).isNotNull();
    return rule;
  }
}
