package io.slidingwindow.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.Limit;
import io.slidingwindow.dashboard.DashboardFeed.Configuration;
import io.slidingwindow.dashboard.DashboardFeed.Domain;
import io.slidingwindow.dashboard.DashboardFeed.Rule;
import io.slidingwindow.dashboard.DecisionRecorder.Outcome;
import io.slidingwindow.testkit.FakeTicker;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DashboardFeedTest {

  private final FakeTicker ticker = new FakeTicker();
  private final DecisionRecorder recorder = new DecisionRecorder(ticker, 1_700_000_000_000L);

  private static final Configuration CONFIG =
      new Configuration(
          "application properties",
          null,
          List.of(
              new Domain(
                  "shop", List.of(new Rule("api", "api", "2 per 10s", false, "GET /api/**")))));

  @Test
  void toJson_feedOfRecordedDecisions_holdsSeriesTopKeysConfigAndBackend() {
    recorder.record("shop", "api", Outcome.ALLOWED, "ip:10.0.0.1");
    recorder.record("shop", "api", Outcome.REFUSED, "ip:10.0.0.1");
    recorder.record("shop", "trial", Outcome.DRY_RUN_REFUSED, "ip:10.0.0.2");

    String json =
        DashboardFeed.toJson(
            DashboardFeed.of(recorder.snapshot(), CONFIG, Map.of("backend", "memory")));

    String zeros = ",0".repeat(DecisionRecorder.HISTORY_SECONDS - 1).substring(1);
    assertThat(json)
        .startsWith("{\"seconds\":[1699999701,")
        .contains("1700000000],\"domains\":[{\"domain\":\"shop\",\"decisions\":[" + zeros + ",3]")
        .contains("\"refusals\":[" + zeros + ",1],\"dryRunRefusals\":[" + zeros + ",1]}]")
        .contains("\"rules\":[{\"domain\":\"shop\",\"rule\":\"api\",\"decisions\":[" + zeros)
        .contains(
            "\"topWindowSeconds\":60,\"topRefused\":["
                + "{\"domain\":\"shop\",\"rule\":\"api\",\"descriptor\":\""
                + DecisionRecorder.shownKey("ip:10.0.0.1")
                + "\",\"refusals\":1},"
                + "{\"domain\":\"shop\",\"rule\":\"trial\",\"descriptor\":\""
                + DecisionRecorder.shownKey("ip:10.0.0.2")
                + "\",\"refusals\":1}]")
        .endsWith(
            "\"config\":{\"path\":\"application properties\",\"lastReloadError\":null,"
                + "\"domains\":[{\"domain\":\"shop\",\"rules\":[{\"rule\":\"api\",\"name\":\"api\","
                + "\"limits\":\"2 per 10s\",\"shadowMode\":false,\"source\":\"GET /api/**\"}]}]},"
                + "\"backend\":{\"backend\":\"memory\"}}");
  }

  @Test
  void toJson_textChosenByAClient_escapedIntoOneStringAndTheKeyNeverShown() {
    String hostile = "\"</script><b>&\\\n\r\t\u0000\u2028\ud800 é \ud83d\ude00";
    recorder.record(hostile, "api", Outcome.REFUSED, hostile);

    String json =
        DashboardFeed.toJson(DashboardFeed.of(recorder.snapshot(), CONFIG, Map.of("backend", "x")));

    assertThat(json)
        .contains(
            "\"domain\":\"\\\"\\u003c/script\\u003e\\u003cb\\u003e\\u0026\\\\\\n\\r\\t"
                + "\\u0000\\u2028\\ud800 é \ud83d\ude00\"")
        .contains("\"descriptor\":\"" + DecisionRecorder.shownKey(hostile) + "\"")
        .doesNotContain("<", ">", "\n");
  }

  @Test
  void toJson_unsupportedValue_refusedNamingItsType() {
    Map<String, Object> tree = new LinkedHashMap<>();
    tree.put("x", new Object());
    assertThatThrownBy(() -> DashboardFeed.toJson(tree))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("java.lang.Object");
  }

  @Test
  void limits_severalLimits_joinedAsText() {
    assertThat(
            DashboardFeed.limits(
                List.of(
                    Limit.of(5, Duration.ofSeconds(10)), Limit.of(100, Duration.ofSeconds(90)))))
        .isEqualTo("5 per 10s, 100 per 90s");
  }

  @Test
  void window_wholeUnits_largestUnitThatDivides() {
    assertThat(DashboardFeed.window(Duration.ofDays(30))).isEqualTo("30d");
    assertThat(DashboardFeed.window(Duration.ofHours(36))).isEqualTo("36h");
    assertThat(DashboardFeed.window(Duration.ofMinutes(90))).isEqualTo("90m");
    assertThat(DashboardFeed.window(Duration.ofSeconds(90))).isEqualTo("90s");
    assertThat(DashboardFeed.window(Duration.ofMillis(1500))).isEqualTo("1500ms");
    assertThat(DashboardFeed.window(Duration.ofNanos(1001))).isEqualTo("1001ns");
    assertThat(DashboardFeed.window(Duration.ofNanos(2000))).isEqualTo("2us");
  }

  @Test
  void window_beyondNanosecondRange_isoText() {
    Duration huge = Duration.ofSeconds(Long.MAX_VALUE / 2);
    assertThat(DashboardFeed.window(huge)).isEqualTo(huge.toString());
  }
}
