package io.slidingwindow.http.otel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.slidingwindow.Limit;
import io.slidingwindow.http.EnforcementCore;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.QuotaHeaders;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.http.RequestKey;
import io.slidingwindow.testkit.FakeTicker;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class OpenTelemetryRateLimitListenerTest {

  private final FakeTicker ticker = new FakeTicker();
  private final InMemoryMetricReader metrics = InMemoryMetricReader.create();
  private final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private final OpenTelemetrySdk sdk =
      OpenTelemetrySdk.builder()
          .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(metrics).build())
          .setTracerProvider(
              SdkTracerProvider.builder()
                  .addSpanProcessor(SimpleSpanProcessor.create(spans))
                  .build())
          .build();

  @AfterEach
  void close() {
    sdk.close();
  }

  private EnforcementCore<String> core(HttpRule... rules) {
    EnforcementCore.Builder<String> builder =
        EnforcementCore.<String>builder()
            .limiterFactory(RateLimiterFactory.inMemory(ticker, 100))
            .listener(new OpenTelemetryRateLimitListener(sdk));
    for (HttpRule rule : rules) {
      builder.rule(
          rule,
          client -> {
            if (client.equals("broken")) {
              throw new IllegalStateException("no key");
            }
            return RequestKey.custom(client);
          });
    }
    return builder.build();
  }

  private static HttpRule rule(String name, int permits, boolean dryRun) {
    return HttpRule.builder(name)
        .path("/api/**")
        .limit(Limit.of(permits, Duration.ofSeconds(10)))
        .dryRun(dryRun)
        .build();
  }

  private static void request(EnforcementCore<String> core, String client) {
    core.enforce(client, "GET", List.of("/api/a"), QuotaHeaders::new);
  }

  /** The counter's value per "rule/outcome/mode". */
  private Map<String, Long> counts(String metric) {
    Map<String, Long> counts = new HashMap<>();
    for (MetricData data : metrics.collectAllMetrics()) {
      if (!data.getName().equals(metric)) {
        continue;
      }
      for (LongPointData point : data.getLongSumData().getPoints()) {
        Attributes a = point.getAttributes();
        counts.put(
            a.get(AttributeKey.stringKey("rule"))
                + "/"
                + a.get(AttributeKey.stringKey("outcome"))
                + "/"
                + a.get(AttributeKey.stringKey("mode")),
            point.getValue());
      }
    }
    return counts;
  }

  @Test
  void build_rules_recordsEverySeriesAtZero() {
    core(rule("quotes", 2, false), rule("search", 2, true));

    assertThat(counts(OpenTelemetryRateLimitListener.METRIC))
        .containsOnly(
            Map.entry("quotes/allowed/enforce", 0L),
            Map.entry("quotes/refused/enforce", 0L),
            Map.entry("quotes/errored/enforce", 0L),
            Map.entry("search/allowed/dry-run", 0L),
            Map.entry("search/refused/dry-run", 0L),
            Map.entry("search/errored/dry-run", 0L));
  }

  @Test
  void decisions_countedPerRuleOutcomeAndMode_asTheMicrometerCounters() {
    EnforcementCore<String> core = core(rule("quotes", 2, false), rule("search", 1, true));

    for (int i = 0; i < 3; i++) {
      request(core, "alice");
    }
    // The broken key is an error, and the request then counts, granted, under its client's key.
    request(core, "broken");

    assertThat(counts(OpenTelemetryRateLimitListener.METRIC))
        .containsOnly(
            Map.entry("quotes/allowed/enforce", 3L),
            Map.entry("quotes/refused/enforce", 1L),
            Map.entry("quotes/errored/enforce", 1L),
            Map.entry("search/allowed/dry-run", 2L),
            Map.entry("search/refused/dry-run", 1L),
            Map.entry("search/errored/dry-run", 1L));
  }

  @Test
  @SuppressWarnings("try") // the scope only makes the span current
  void decisions_insideASpan_addAnEventWithRuleOutcomeAndRemaining() {
    EnforcementCore<String> core = core(rule("quotes", 2, false));
    Span span = sdk.getTracer("test").spanBuilder("request").startSpan();
    try (Scope ignored = span.makeCurrent()) {
      request(core, "alice");
      request(core, "alice");
      ticker.advance(Duration.ofMillis(2500));
      request(core, "alice");
      request(core, "broken");
    } finally {
      span.end();
    }

    List<EventData> events = spans.getFinishedSpanItems().get(0).getEvents();
    assertThat(events).extracting(EventData::getName).containsOnly("slidingwindow.decision");
    assertThat(events)
        .extracting(e -> e.getAttributes().get(AttributeKey.stringKey("slidingwindow.outcome")))
        .containsExactly("allowed", "allowed", "refused", "errored", "allowed");
    assertThat(events)
        .extracting(e -> e.getAttributes().get(AttributeKey.stringKey("slidingwindow.rule")))
        .containsOnly("quotes");
    assertThat(events)
        .extracting(e -> e.getAttributes().get(AttributeKey.longKey("slidingwindow.remaining")))
        .containsExactly(1L, 0L, 0L, null, 1L);
    assertThat(
            events.get(2).getAttributes().get(AttributeKey.longKey("slidingwindow.retry_after_ms")))
        .as("10 s less the 2.5 s passed, plus one bucket of the default precision (10 ms)")
        .isEqualTo(7510L);
    assertThat(events.get(3).getAttributes().get(AttributeKey.stringKey("error.type")))
        .isEqualTo(IllegalStateException.class.getName());
  }

  @Test
  void decisions_withoutARecordingSpan_onlyCount() {
    EnforcementCore<String> core = core(rule("quotes", 2, false));

    request(core, "alice");

    assertThat(spans.getFinishedSpanItems()).isEmpty();
    assertThat(counts(OpenTelemetryRateLimitListener.METRIC))
        .containsEntry("quotes/allowed/enforce", 1L);
  }

  @Test
  void rejectedPath_countedApart() {
    EnforcementCore<String> core = core(rule("quotes", 2, false));
    assertThat(core.checkPath("GET", "/api/../admin")).isPresent();

    List<MetricData> rejected =
        metrics.collectAllMetrics().stream()
            .filter(m -> m.getName().equals(OpenTelemetryRateLimitListener.REJECTED_PATHS_METRIC))
            .toList();
    assertThat(rejected).hasSize(1);
    assertThat(rejected.get(0).getLongSumData().getPoints())
        .extracting(LongPointData::getValue)
        .containsExactly(1L);
  }

  @Test
  void constructor_null_throwsNamingTheParameter() {
    assertThatThrownBy(() -> new OpenTelemetryRateLimitListener(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("openTelemetry");
  }
}
