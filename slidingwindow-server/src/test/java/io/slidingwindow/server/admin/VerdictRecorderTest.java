package io.slidingwindow.server.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.dashboard.DecisionRecorder;
import io.slidingwindow.dashboard.DecisionRecorder.RefusedKey;
import io.slidingwindow.dashboard.DecisionRecorder.Series;
import io.slidingwindow.dashboard.DecisionRecorder.Snapshot;
import io.slidingwindow.dashboard.DecisionRecorder.TopKey;
import io.slidingwindow.server.decide.Decisions.Code;
import io.slidingwindow.server.decide.Decisions.Outcome;
import io.slidingwindow.server.decide.Decisions.Status;
import io.slidingwindow.server.decide.Decisions.Verdict;
import io.slidingwindow.server.decide.TestRequest;
import io.slidingwindow.testkit.FakeTicker;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;

class VerdictRecorderTest {

  private final DecisionRecorder recorder = new DecisionRecorder(new FakeTicker(), 0);
  private final VerdictRecorder verdicts = new VerdictRecorder(recorder);

  private static Status status(Code code, String rule, Outcome outcome) {
    return new Status(code, null, 0, null, null, rule, outcome);
  }

  private static long last(long[] values) {
    return values[values.length - 1];
  }

  private static Series series(List<Series> all, String domain, String rule) {
    return all.stream()
        .filter(s -> s.domain().equals(domain) && Objects.equals(s.rule(), rule))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no series " + domain + "/" + rule + " in " + all));
  }

  @Test
  void record_oneVerdictOfSeveralDescriptors_oneDecisionEachAndTheRefusedEntriesAsKey() {
    verdicts.record(
        TestRequest.of(
            "web",
            TestRequest.descriptor("client", "a"),
            TestRequest.descriptor("client", "b", "path", "/x")),
        new Verdict(
            status(Code.OK, "client", Outcome.OK),
            status(Code.OVER_LIMIT, "client_path", Outcome.OVER_LIMIT)));

    Snapshot snapshot = recorder.snapshot();
    assertThat(last(series(snapshot.domains(), "web", null).decisions())).isEqualTo(2);
    assertThat(last(series(snapshot.domains(), "web", null).refusals())).isEqualTo(1);
    assertThat(last(series(snapshot.rules(), "web", "client").refusals())).isZero();
    assertThat(snapshot.topRefused())
        .containsExactly(
            new TopKey(
                new RefusedKey(
                    "web", "client_path", DecisionRecorder.shownKey("client=b, path=/x")),
                1));
  }

  @Test
  void record_shadowRefusal_isADecisionOnly() {
    verdicts.record(
        TestRequest.of("web", TestRequest.descriptor("plan", "free")),
        new Verdict(status(Code.OK, "plan_free", Outcome.SHADOW_OVER_LIMIT)));
    Series web = series(recorder.snapshot().domains(), "web", null);
    assertThat(last(web.decisions())).isEqualTo(1);
    assertThat(last(web.refusals())).isZero();
    assertThat(last(web.dryRunRefusals())).isZero();
    assertThat(recorder.snapshot().topRefused()).isEmpty();
  }

  @Test
  void record_longValues_cutToTheBound() {
    verdicts.record(
        TestRequest.of("web", TestRequest.descriptor("client", "x".repeat(5000), "b", "c")),
        new Verdict(status(Code.OVER_LIMIT, "client", Outcome.OVER_LIMIT)));
    String key = recorder.snapshot().topRefused().get(0).key().key();
    assertThat(key)
        .isEqualTo(
            DecisionRecorder.shownKey(
                DecisionRecorder.cut("client=" + "x".repeat(5000) + ", b=c")));
  }

  /**
   * A value read from bytes that are not UTF-8 (a lone surrogate, then one char a byte) shows as
   * every value does, its source and a hash, never the surrogate; and not as the text that a lossy
   * encoding would make of it (the surrogate as '?'), which is another key.
   */
  @Test
  void record_valueNotUtf8_showsAsItsSourceAndAHashOfItsOwn() {
    String notUtf8 = "\uD800k\u00ffey";
    String lookalike = "?k\u00ffey";
    for (String value : new String[] {notUtf8, lookalike}) {
      verdicts.record(
          TestRequest.of("web", TestRequest.descriptor("api_key", value)),
          new Verdict(status(Code.OVER_LIMIT, "api_key", Outcome.OVER_LIMIT)));
    }

    List<String> shown =
        recorder.snapshot().topRefused().stream().map(top -> top.key().key()).toList();

    assertThat(shown).hasSize(2).allMatch(key -> key.matches("api_key=#[0-9a-f]{12}"));
    assertThat(shown.get(0)).isNotEqualTo(shown.get(1));
    assertThat(shown).contains(DecisionRecorder.shownKey("api_key=" + notUtf8));
  }

  @Test
  void constructor_nullRecorder_refused() {
    assertThatThrownBy(() -> new VerdictRecorder(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("recorder");
  }
}
