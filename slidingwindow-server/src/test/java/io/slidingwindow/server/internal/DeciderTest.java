package io.slidingwindow.server.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.server.ConfigException;
import io.slidingwindow.server.internal.Decisions.Code;
import io.slidingwindow.server.internal.Decisions.Descriptor;
import io.slidingwindow.server.internal.Decisions.Entry;
import io.slidingwindow.server.internal.Decisions.Outcome;
import io.slidingwindow.server.internal.Decisions.Verdict;
import io.slidingwindow.testkit.FakeTicker;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeciderTest {

  @Test
  void key_overrideAndConfiguredRuleOfTheSamePath_neverShareAKey() {
    List<Entry> entries = List.of(new Entry("override", "x"));
    List<String> values = List.of("x");

    String configured = Decider.key(false, "d", "override", entries, values);
    String override = Decider.key(true, "d", "override", entries, values);

    assertThat(configured).isNotEqualTo(override);
    assertThat(Decider.key(false, "d", "override", entries, values)).isEqualTo(configured);
  }

  private final FakeTicker ticker = new FakeTicker(Long.MAX_VALUE - 1_000_000_000L);

  @Test
  void decide_replacesName_dropsTheReplacedRuleAndLeavesItsCountAlone() throws ConfigException {
    Decider decider = new Decider(Configs.resources("envoy-config/edge.yaml"), ticker, 1000);
    Descriptor specific = descriptor("key_1", "value_1", "user", "bkthomps");
    Descriptor replacing = descriptor("key_2", "value_2", "user", "bkthomps");

    for (int i = 0; i < 7; i++) {
      Verdict both = decider.decide("edge_proxy", List.of(specific, replacing), 0);
      assertThat(both.overall()).isEqualTo(Code.OK);
      assertThat(both.statuses().get(0).outcome()).isEqualTo(Outcome.UNMATCHED);
      assertThat(both.statuses().get(1).limit().requestsPerUnit()).isEqualTo(10);
    }
    // The 5-per-second rule was never counted while replaced.
    for (int i = 0; i < 5; i++) {
      assertThat(decider.decide("edge_proxy", List.of(specific), 0).overall()).isEqualTo(Code.OK);
    }
    assertThat(decider.decide("edge_proxy", List.of(specific), 0).overall())
        .isEqualTo(Code.OVER_LIMIT);
  }

  @Test
  void decide_shareThreshold_valuesMatchingOneWildcardShareACount() throws ConfigException {
    Decider decider = new Decider(Configs.resources("envoy-config/edge.yaml"), ticker, 1000);

    for (String file : List.of("files/a.pdf", "files/b.csv", "files/c", "files/d")) {
      assertThat(decider.decide("edge_proxy", List.of(descriptor("files", file)), 0).overall())
          .isEqualTo(Code.OK);
    }
    assertThat(decider.decide("edge_proxy", List.of(descriptor("files", "files/e")), 0).overall())
        .isEqualTo(Code.OVER_LIMIT);
    // Without share_threshold each value counts on its own.
    for (int i = 0; i < 2; i++) {
      assertThat(
              decider
                  .decide("edge_proxy", List.of(descriptor("path", "/api/" + i + "/action")), 0)
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
    Decider decider = new Decider(Configs.parse(before), ticker, 1000);
    for (int i = 0; i < 2; i++) {
      decider.decide("d", List.of(descriptor("a", "x")), 0);
      decider.decide("d", List.of(descriptor("b", "x")), 0);
    }

    decider.apply(Configs.parse(after));

    assertThat(decider.decide("d", List.of(descriptor("a", "x")), 0).overall())
        .isEqualTo(Code.OVER_LIMIT);
    Verdict changed = decider.decide("d", List.of(descriptor("b", "x")), 0);
    assertThat(changed.overall()).isEqualTo(Code.OK);
    assertThat(changed.statuses().get(0).remaining()).isEqualTo(2);
  }

  @Test
  void decide_descriptorHitsOverrideTheRequestsAndZeroMeansOne() throws ConfigException {
    Decider decider =
        new Decider(
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
            "d",
            List.of(
                new Descriptor(List.of(new Entry("a", "1")), 4L, null),
                new Descriptor(List.of(new Entry("a", "2")), null, null),
                new Descriptor(List.of(new Entry("a", "3")), 0L, null)),
            3);

    assertThat(verdict.statuses())
        .extracting(Decisions.Status::remaining)
        .containsExactly(6L, 7L, 9L);
    assertThat(verdict.statuses().get(0).limit().name()).isEqualTo("10 per PT1.5S");
  }

  static Descriptor descriptor(String... pairs) {
    List<Entry> entries = new ArrayList<>();
    for (int i = 0; i < pairs.length; i += 2) {
      entries.add(new Entry(pairs[i], pairs[i + 1]));
    }
    return new Descriptor(entries, null, null);
  }
}
