package io.slidingwindow.server.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.dashboard.DecisionRecorder;
import io.slidingwindow.dashboard.DecisionRecorder.RefusedKey;
import io.slidingwindow.dashboard.DecisionRecorder.Series;
import io.slidingwindow.dashboard.DecisionRecorder.Snapshot;
import io.slidingwindow.dashboard.DecisionRecorder.TopKey;
import io.slidingwindow.server.internal.Decisions.Code;
import io.slidingwindow.server.internal.Decisions.Descriptor;
import io.slidingwindow.server.internal.Decisions.Entry;
import io.slidingwindow.server.internal.Decisions.Outcome;
import io.slidingwindow.server.internal.Decisions.Status;
import io.slidingwindow.server.internal.Decisions.Verdict;
import io.slidingwindow.testkit.FakeTicker;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;

class VerdictRecorderTest {

  private final DecisionRecorder recorder = new DecisionRecorder(new FakeTicker(), 0);
  private final VerdictRecorder verdicts = new VerdictRecorder(recorder);

  private static Descriptor descriptor(String... keysAndValues) {
    List<Entry> entries = new ArrayList<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      entries.add(new Entry(keysAndValues[i], keysAndValues[i + 1]));
    }
    return new Descriptor(entries, null, null);
  }

  private static Status status(Code code, String rule, Outcome outcome) {
    return new Status(code, null, 0, null, rule, outcome);
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
        "web",
        List.of(descriptor("client", "a"), descriptor("client", "b", "path", "/x")),
        new Verdict(
            Code.OVER_LIMIT,
            List.of(
                status(Code.OK, "client", Outcome.OK),
                status(Code.OVER_LIMIT, "client_path", Outcome.OVER_LIMIT))));

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
        "web",
        List.of(descriptor("plan", "free")),
        new Verdict(Code.OK, List.of(status(Code.OK, "plan_free", Outcome.SHADOW_OVER_LIMIT))));
    Series web = series(recorder.snapshot().domains(), "web", null);
    assertThat(last(web.decisions())).isEqualTo(1);
    assertThat(last(web.refusals())).isZero();
    assertThat(last(web.dryRunRefusals())).isZero();
    assertThat(recorder.snapshot().topRefused()).isEmpty();
  }

  @Test
  void record_longValues_cutToTheBound() {
    verdicts.record(
        "web",
        List.of(descriptor("client", "x".repeat(5000), "b", "c")),
        new Verdict(
            Code.OVER_LIMIT, List.of(status(Code.OVER_LIMIT, "client", Outcome.OVER_LIMIT))));
    String key = recorder.snapshot().topRefused().get(0).key().key();
    assertThat(key)
        .isEqualTo(
            DecisionRecorder.shownKey(
                DecisionRecorder.cut("client=" + "x".repeat(5000) + ", b=c")));
  }

  @Test
  void record_moreStatusesThanDescriptors_refusalCountedAsOther() {
    verdicts.record(
        "web",
        List.of(),
        new Verdict(Code.OVER_LIMIT, List.of(status(Code.OVER_LIMIT, "", Outcome.OVER_LIMIT))));
    assertThat(recorder.snapshot().topRefused())
        .containsExactly(new TopKey(new RefusedKey("web", "", DecisionRecorder.OTHER), 1));
  }

  @Test
  void constructor_nullRecorder_refused() {
    assertThatThrownBy(() -> new VerdictRecorder(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("recorder");
  }
}
