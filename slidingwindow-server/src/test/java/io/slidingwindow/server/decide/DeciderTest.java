package io.slidingwindow.server.decide;

import static io.slidingwindow.server.decide.TestRequest.descriptor;
import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.server.ConfigException;
import io.slidingwindow.server.config.Configs;
import io.slidingwindow.server.decide.Decisions.Code;
import io.slidingwindow.server.decide.Decisions.Outcome;
import io.slidingwindow.server.decide.Decisions.Verdict;
import io.slidingwindow.testkit.FakeTicker;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeciderTest {

  private final FakeTicker ticker = new FakeTicker(Long.MAX_VALUE - 1_000_000_000L);

  @Test
  void decide_replacesName_dropsTheReplacedRuleAndLeavesItsCountAlone() throws ConfigException {
    Decider decider =
        TestRequest.decider(Configs.resources("envoy-config/edge.yaml"), ticker, 1000);
    TestRequest.Descriptor specific = descriptor("key_1", "value_1", "user", "bkthomps");
    TestRequest.Descriptor replacing = descriptor("key_2", "value_2", "user", "bkthomps");

    for (int i = 0; i < 7; i++) {
      Verdict both = decider.decide(TestRequest.of("edge_proxy", specific, replacing));
      assertThat(both.overall()).isEqualTo(Code.OK);
      assertThat(both.status(0).outcome()).isEqualTo(Outcome.UNMATCHED);
      assertThat(both.status(1).limit().requestsPerUnit()).isEqualTo(10);
    }
    // The 5-per-second rule was never counted while replaced.
    for (int i = 0; i < 5; i++) {
      assertThat(decider.decide(TestRequest.of("edge_proxy", specific)).overall())
          .isEqualTo(Code.OK);
    }
    assertThat(decider.decide(TestRequest.of("edge_proxy", specific)).overall())
        .isEqualTo(Code.OVER_LIMIT);
  }

  @Test
  void decide_shareThreshold_valuesMatchingOneWildcardShareACount() throws ConfigException {
    Decider decider =
        TestRequest.decider(Configs.resources("envoy-config/edge.yaml"), ticker, 1000);

    for (String file : List.of("files/a.pdf", "files/b.csv", "files/c", "files/d")) {
      assertThat(decider.decide(TestRequest.of("edge_proxy", descriptor("files", file))).overall())
          .isEqualTo(Code.OK);
    }
    assertThat(
            decider.decide(TestRequest.of("edge_proxy", descriptor("files", "files/e"))).overall())
        .isEqualTo(Code.OVER_LIMIT);
    // Without share_threshold each value counts on its own.
    for (int i = 0; i < 2; i++) {
      assertThat(
              decider
                  .decide(TestRequest.of("edge_proxy", descriptor("path", "/api/" + i + "/action")))
                  .overall())
          .isEqualTo(Code.OK);
    }
  }

  @Test
  void apply_unchangedRule_keepsItsCountsAndChangedRuleStartsAfresh() throws ConfigException {
    String before =
        """
        domain: d
        descriptors:
          - key: a
            rate_limit: {unit: minute, requests_per_unit: 2}
          - key: b
            rate_limit: {unit: minute, requests_per_unit: 2}
        """;
    String after =
        """
        domain: d
        descriptors:
          - key: a
            rate_limit: {unit: minute, requests_per_unit: 2}
          - key: b
            rate_limit: {unit: minute, requests_per_unit: 3}
        """;
    Decider decider = TestRequest.decider(Configs.parse(before), ticker, 1000);
    for (int i = 0; i < 2; i++) {
      decider.decide(TestRequest.of("d", descriptor("a", "x")));
      decider.decide(TestRequest.of("d", descriptor("b", "x")));
    }

    decider.apply(Configs.parse(after));

    assertThat(decider.decide(TestRequest.of("d", descriptor("a", "x"))).overall())
        .isEqualTo(Code.OVER_LIMIT);
    Verdict changed = decider.decide(TestRequest.of("d", descriptor("b", "x")));
    assertThat(changed.overall()).isEqualTo(Code.OK);
    assertThat(changed.status(0).remaining()).isEqualTo(2);
  }

  /**
   * In memory the failure policy changes nothing a limiter does, so a reload that changes only
   * {@code failure_policy} must not give every client its whole limit again.
   */
  @Test
  void apply_onlyTheFailurePolicyChangedInMemory_keepsTheCounts() throws ConfigException {
    String rule =
        """
        domain: d
        descriptors:
          - key: a
            rate_limit: {unit: minute, requests_per_unit: 2}
        """;
    Decider decider = TestRequest.decider(Configs.parse(rule), ticker, 1000);
    for (int i = 0; i < 2; i++) {
      assertThat(decider.decide(TestRequest.of("d", descriptor("a", "x"))).overall())
          .isEqualTo(Code.OK);
    }

    decider.apply(Configs.parse("failure_policy: refuse\n" + rule));

    assertThat(decider.decide(TestRequest.of("d", descriptor("a", "x"))).overall())
        .as("the third request of the minute, after a reload that changed only the policy")
        .isEqualTo(Code.OVER_LIMIT);
  }

  /**
   * A value may be spelt like a pattern. It is then matched as any other value, by the patterns in
   * their order: a client that sends the spelling of a pattern listed after one that matches it
   * must not reach that later (here more lenient) rule and leave the count it shares with every
   * other value behind.
   */
  @Test
  void decide_aValueSpeltLikeALaterPattern_isDecidedByTheFirstPatternThatMatchesIt()
      throws ConfigException {
    Decider decider =
        TestRequest.decider(
            Configs.parse(
                """
                domain: d
                descriptors:
                  - key: file
                    value: "a*"
                    share_threshold: true
                    rate_limit: {unit: minute, requests_per_unit: 1}
                  - key: file
                    value: "ab*"
                    rate_limit: {unit: minute, requests_per_unit: 100}
                """),
            ticker,
            1000);
    assertThat(decider.decide(TestRequest.of("d", descriptor("file", "abc"))).overall())
        .isEqualTo(Code.OK);

    Verdict spelt = decider.decide(TestRequest.of("d", descriptor("file", "ab*")));

    assertThat(spelt.status(0).tag()).isEqualTo("file_a*");
    assertThat(spelt.overall()).as("the count of a* is spent").isEqualTo(Code.OVER_LIMIT);
  }

  @Test
  void decide_descriptorHitsOverrideTheRequestsAndZeroMeansOne() throws ConfigException {
    Decider decider =
        TestRequest.decider(
            Configs.parse(
                """
                domain: d
                descriptors:
                  - key: a
                    rate_limits: [{requests: 10, window: 1500ms}]
                """),
            ticker,
            1000);

    Verdict verdict =
        decider.decide(
            new TestRequest(
                "d",
                3,
                List.of(
                    descriptor("a", "1").hits(4),
                    descriptor("a", "2"),
                    descriptor("a", "3").hits(0))));

    assertThat(List.of(verdict.status(0), verdict.status(1), verdict.status(2)))
        .extracting(Decisions.Status::remaining)
        .containsExactly(6L, 7L, 9L);
    assertThat(verdict.status(0).limit().name()).isEqualTo("10 per PT1.5S");
  }
}
