package io.slidingwindow.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.dashboard.DecisionRecorder.Outcome;
import io.slidingwindow.dashboard.DecisionRecorder.RefusedKey;
import io.slidingwindow.dashboard.DecisionRecorder.Series;
import io.slidingwindow.dashboard.DecisionRecorder.Snapshot;
import io.slidingwindow.dashboard.DecisionRecorder.TopKey;
import io.slidingwindow.testkit.FakeTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DecisionRecorderTest {

  private static final long EPOCH_MILLIS = 1_700_000_000_500L;

  private final FakeTicker ticker = new FakeTicker(123_456_789L);
  private final DecisionRecorder recorder = new DecisionRecorder(ticker, EPOCH_MILLIS);

  /** A decision of these tests: the rule and what it answered. */
  private record Status(String rule, Outcome outcome) {}

  private static String descriptor(String key, String value) {
    return key + "=" + value;
  }

  private static Status ok(String rule) {
    return new Status(rule, Outcome.ALLOWED);
  }

  private static Status refused(String rule) {
    return new Status(rule, Outcome.REFUSED);
  }

  private void record(String domain, String key, Status status) {
    recorder.record(domain, status.rule(), status.outcome(), key);
  }

  private static long last(long[] values) {
    return values[values.length - 1];
  }

  private static Series series(List<Series> all, String domain, String rule) {
    return all.stream()
        .filter(s -> s.domain().equals(domain) && java.util.Objects.equals(s.rule(), rule))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no series " + domain + "/" + rule + " in " + all));
  }

  @Test
  void snapshot_decisionsInTheCurrentSecond_countedPerDomainAndRule() {
    record("web", descriptor("client", "a"), ok("client"));
    record("web", descriptor("client", "a"), refused("client"));
    record("web", descriptor("path", "/x"), ok("path"));
    record("mail", descriptor("to", "b"), ok("to"));

    Snapshot snapshot = recorder.snapshot();

    assertThat(snapshot.seconds()).hasSize(DecisionRecorder.HISTORY_SECONDS);
    assertThat(last(snapshot.seconds())).isEqualTo(1_700_000_000L);
    assertThat(last(series(snapshot.domains(), "web", null).decisions())).isEqualTo(3);
    assertThat(last(series(snapshot.domains(), "web", null).refusals())).isEqualTo(1);
    assertThat(last(series(snapshot.domains(), "mail", null).decisions())).isEqualTo(1);
    assertThat(last(series(snapshot.rules(), "web", "client").decisions())).isEqualTo(2);
    assertThat(last(series(snapshot.rules(), "web", "client").refusals())).isEqualTo(1);
    assertThat(last(series(snapshot.rules(), "web", "path").refusals())).isZero();
    assertThat(snapshot.domains()).extracting(Series::domain).containsExactly("mail", "web");
  }

  @Test
  void snapshot_secondsPass_countsMoveLeftAndLeaveAfterTheHistory() {
    record("web", descriptor("client", "a"), refused("client"));
    ticker.advance(Duration.ofSeconds(1));
    record("web", descriptor("client", "a"), ok("client"));
    record("web", descriptor("client", "a"), ok("client"));

    long[] decisions = series(recorder.snapshot().domains(), "web", null).decisions();
    int n = decisions.length;
    assertThat(decisions[n - 2]).isEqualTo(1);
    assertThat(decisions[n - 1]).isEqualTo(2);
    assertThat(last(recorder.snapshot().seconds())).isEqualTo(1_700_000_001L);

    ticker.advance(Duration.ofSeconds(DecisionRecorder.HISTORY_SECONDS - 1));
    decisions = series(recorder.snapshot().domains(), "web", null).decisions();
    assertThat(decisions[0]).isEqualTo(2);
    assertThat(decisions).containsOnlyOnce(2).contains(0);

    ticker.advance(Duration.ofSeconds(1));
    assertThat(recorder.snapshot().domains()).isEmpty();
  }

  @Test
  void record_slotReusedAfterTheRing_startsFromZero() {
    record("web", descriptor("client", "a"), ok("client"));
    ticker.advance(Duration.ofSeconds(DecisionRecorder.HISTORY_SECONDS));
    record("web", descriptor("client", "a"), ok("client"));

    long[] decisions = series(recorder.snapshot().domains(), "web", null).decisions();
    assertThat(last(decisions)).isEqualTo(1);
    assertThat(java.util.Arrays.stream(decisions).sum()).isEqualTo(1);
  }

  @Test
  void snapshot_refusedKeys_mostRefusedFirstOverTheLastMinute() {
    for (int i = 0; i < 5; i++) {
      record("web", descriptor("client", "heavy"), refused("client"));
    }
    ticker.advance(Duration.ofSeconds(30));
    for (int i = 0; i < 3; i++) {
      record("web", descriptor("client", "medium"), refused("client"));
    }
    record("web", descriptor("client", "heavy"), refused("client"));
    record("web", descriptor("client", "granted"), ok("client"));

    assertThat(recorder.snapshot().topRefused())
        .containsExactly(
            new TopKey(new RefusedKey("web", "client", shown("client=heavy")), 6),
            new TopKey(new RefusedKey("web", "client", shown("client=medium")), 3));

    ticker.advance(Duration.ofSeconds(30));
    assertThat(recorder.snapshot().topRefused())
        .containsExactly(
            new TopKey(new RefusedKey("web", "client", shown("client=medium")), 3),
            new TopKey(new RefusedKey("web", "client", shown("client=heavy")), 1));

    ticker.advance(Duration.ofSeconds(30));
    assertThat(recorder.snapshot().topRefused()).isEmpty();
  }

  @Test
  void snapshot_top_limitsTheKeysReturned() {
    for (int i = 0; i < 20; i++) {
      for (int j = 0; j <= i; j++) {
        record("web", descriptor("client", "c" + i), refused("client"));
      }
    }
    List<TopKey> top = recorder.snapshot().topRefused();
    assertThat(top).hasSize(10);
    assertThat(top.get(0))
        .isEqualTo(new TopKey(new RefusedKey("web", "client", shown("client=c19")), 20));
    assertThat(recorder.snapshot(3).topRefused()).hasSize(3);
    assertThatThrownBy(() -> recorder.snapshot(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-1");
  }

  @Test
  void record_manyDistinctRefusedValuesInOneSecond_extraOnesCountedAsOther() {
    int extra = 44;
    for (int i = 0; i < DecisionRecorder.MAX_KEYS_PER_SECOND + extra; i++) {
      record("web", descriptor("client", "c" + i), refused("client"));
    }
    List<TopKey> top = recorder.snapshot(1).topRefused();
    assertThat(top)
        .containsExactly(
            new TopKey(new RefusedKey("web", "client", DecisionRecorder.OTHER), extra));
  }

  @Test
  void record_longKeys_cutToTheBoundAndShownAsAHash() {
    String longKey = "client=" + "x".repeat(5000);
    record("web", longKey, refused("client"));
    String key = recorder.snapshot().topRefused().get(0).key().key();
    assertThat(key)
        .isEqualTo(DecisionRecorder.shownKey(DecisionRecorder.cut(longKey)))
        .matches("client=#[0-9a-f]{12}");
  }

  @Test
  void shownKey_neverTheKey_butItsSourceAndAStableHash() {
    assertThat(DecisionRecorder.shownKey("ip:203.0.113.7"))
        .matches("ip:#[0-9a-f]{12}")
        .isEqualTo(DecisionRecorder.shownKey("ip:203.0.113.7"))
        .isNotEqualTo(DecisionRecorder.shownKey("ip:203.0.113.8"));
    assertThat(DecisionRecorder.shownKey("header:x-api-key:demo-key-1"))
        .matches("header:x-api-key:#[0-9a-f]{12}")
        .doesNotContain("demo-key-1");
    assertThat(DecisionRecorder.shownKey("principal:alice")).matches("principal:#[0-9a-f]{12}");
    assertThat(DecisionRecorder.shownKey("(custom:42|ip:203.0.113.7)")).matches("#[0-9a-f]{12}");
    assertThat(DecisionRecorder.shownKey("sha256:abc")).matches("sha256:#[0-9a-f]{12}");
    assertThat(DecisionRecorder.shownKey(DecisionRecorder.OTHER)).isEqualTo(DecisionRecorder.OTHER);
  }

  @Test
  void cut_surrogatePairAtTheEdge_keptWhole() {
    String text = "x".repeat(DecisionRecorder.MAX_KEY_CHARS - 2) + "\ud83d\ude00" + "tail";
    String cut = DecisionRecorder.cut(text);
    assertThat(cut).endsWith("x…").hasSize(DecisionRecorder.MAX_KEY_CHARS - 1);
    assertThat(DecisionRecorder.cut("short")).isEqualTo("short");
  }

  @Test
  void record_nullKeyRefused_countedAsOther() {
    recorder.record("web", "client", Outcome.REFUSED, null);
    assertThat(recorder.snapshot().topRefused())
        .containsExactly(new TopKey(new RefusedKey("web", "client", DecisionRecorder.OTHER), 1));
  }

  @Test
  void record_moreRulesThanTheBound_foldedIntoOther() {
    int rules = DecisionRecorder.MAX_SERIES + 5;
    for (int i = 0; i < rules; i++) {
      record("web", descriptor("k" + i, "v"), ok("k" + i));
    }
    List<Series> series = recorder.snapshot().rules();
    assertThat(series).hasSize(DecisionRecorder.MAX_SERIES + 1);
    assertThat(last(series(series, DecisionRecorder.OTHER, DecisionRecorder.OTHER).decisions()))
        .isEqualTo(5);
  }

  @Test
  void record_moreDomainsThanTheBound_foldedIntoOther() {
    int domains = DecisionRecorder.MAX_SERIES + 3;
    for (int i = 0; i < domains; i++) {
      record("d" + i, descriptor("k", "v"), refused("k"));
    }
    Snapshot snapshot = recorder.snapshot();
    assertThat(snapshot.domains()).hasSize(DecisionRecorder.MAX_SERIES + 1);
    Series other = series(snapshot.domains(), DecisionRecorder.OTHER, null);
    assertThat(last(other.decisions())).isEqualTo(3);
    assertThat(last(other.refusals())).isEqualTo(3);
  }

  @Test
  void record_dryRunRefusal_countedApartAndAmongTheRefusedKeys() {
    record("web", descriptor("plan", "free"), new Status("trial", Outcome.DRY_RUN_REFUSED));
    Series web = series(recorder.snapshot().domains(), "web", null);
    assertThat(last(web.decisions())).isEqualTo(1);
    assertThat(last(web.refusals())).isZero();
    assertThat(last(web.dryRunRefusals())).isEqualTo(1);
    assertThat(last(series(recorder.snapshot().rules(), "web", "trial").dryRunRefusals()))
        .isEqualTo(1);
    assertThat(recorder.snapshot().topRefused())
        .containsExactly(new TopKey(new RefusedKey("web", "trial", shown("plan=free")), 1));
  }

  @Test
  void record_nullArguments_refusedNamingThem() {
    assertThatThrownBy(() -> recorder.record(null, "r", Outcome.ALLOWED, "k"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("domain");
    assertThatThrownBy(() -> recorder.record("d", "r", null, "k"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("outcome");
  }

  @Test
  void record_fromManyThreads_countsEveryDecision() throws Exception {
    int threads = 4;
    int each = 10_000;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < each; i++) {
                    record(
                        "web",
                        descriptor("client", "c" + (i % 7)),
                        i % 2 == 0 ? ok("client") : refused("client"));
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    Snapshot snapshot = recorder.snapshot();
    Series web = series(snapshot.domains(), "web", null);
    assertThat(last(web.decisions())).isEqualTo((long) threads * each);
    assertThat(last(web.refusals())).isEqualTo((long) threads * each / 2);
    assertThat(snapshot.topRefused().stream().mapToLong(TopKey::refusals).sum())
        .isEqualTo((long) threads * each / 2);
  }

  @Test
  void constructor_nullTicker_refused() {
    assertThatThrownBy(() -> new DecisionRecorder(null, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ticker");
  }

  private static String shown(String key) {
    return DecisionRecorder.shownKey(key);
  }
}
