package io.slidingwindow.http.otel;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.trace.Span;
import io.slidingwindow.Decision;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimitListener;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reports each rate-limit decision to OpenTelemetry: an event on the current span and a count per
 * rule, outcome and mode, the same figures the Micrometer listener of the Spring Boot starter
 * counts.
 *
 * <p>Metrics: the counter {@value #METRIC} with attributes {@code rule}, {@code outcome} ({@code
 * allowed}, {@code refused}, {@code errored}) and {@code mode} ({@code enforce} or {@code
 * dry-run}), and the counter {@value #REJECTED_PATHS_METRIC} of requests the path firewall answered
 * 400, without attributes. A rule's three series are recorded at zero when an enforcer is built
 * with it, so that they exist before the first request. Both come from the meter named {@value
 * #SCOPE}.
 *
 * <p>Spans: if the span current on the thread that is told of a decision is recording, it gets an
 * event {@value #DECISION_EVENT} with {@code slidingwindow.rule}, {@code slidingwindow.outcome},
 * {@code slidingwindow.mode}, and {@code slidingwindow.remaining} (permits left in the binding
 * limit after a grant, 0 after a refusal) or, for a refusal, {@code slidingwindow.retry_after_ms}
 * (the exact wait, in milliseconds rounded up). A decision made synchronously (servlet, JAX-RS, the
 * in-memory limiter on any stack) is told on the request's thread, so its event lands on the
 * request's span. A decision that a remote backend completes later is told on the backend's thread,
 * where the request's span is current only if the application propagates the context to that thread
 * (the OpenTelemetry Java agent does); otherwise only the counters see it. The key is never
 * recorded: a client chooses it.
 *
 * <p>This class is the only one in the project that refers to the OpenTelemetry API, which is an
 * optional dependency: everything else loads and runs without it. Thread-safe.
 */
public final class OpenTelemetryRateLimitListener implements RateLimitListener {

  /** The instrumentation scope of the meter. */
  public static final String SCOPE = "io.slidingwindow";

  /** The counter of decisions, named as the Micrometer counter is. */
  public static final String METRIC = "slidingwindow.http.requests";

  /** The counter of requests the path firewall answered 400. */
  public static final String REJECTED_PATHS_METRIC = "slidingwindow.http.rejected.paths";

  /** The name of the span event of a decision. */
  public static final String DECISION_EVENT = "slidingwindow.decision";

  private static final AttributeKey<String> RULE = AttributeKey.stringKey("rule");
  private static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("outcome");
  private static final AttributeKey<String> MODE = AttributeKey.stringKey("mode");
  private static final AttributeKey<String> EVENT_RULE =
      AttributeKey.stringKey("slidingwindow.rule");
  private static final AttributeKey<String> EVENT_OUTCOME =
      AttributeKey.stringKey("slidingwindow.outcome");
  private static final AttributeKey<String> EVENT_MODE =
      AttributeKey.stringKey("slidingwindow.mode");
  private static final AttributeKey<Long> EVENT_REMAINING =
      AttributeKey.longKey("slidingwindow.remaining");
  private static final AttributeKey<Long> EVENT_RETRY_AFTER_MS =
      AttributeKey.longKey("slidingwindow.retry_after_ms");
  private static final AttributeKey<String> EVENT_ERROR_TYPE = AttributeKey.stringKey("error.type");

  private final LongCounter decisions;
  private final LongCounter rejectedPaths;
  private final ConcurrentHashMap<String, Attributes> series = new ConcurrentHashMap<>();

  /**
   * Reports to {@code openTelemetry}'s meter provider and to the current span.
   *
   * @throws IllegalArgumentException if {@code openTelemetry} is null
   */
  public OpenTelemetryRateLimitListener(OpenTelemetry openTelemetry) {
    if (openTelemetry == null) {
      throw new IllegalArgumentException("openTelemetry must not be null");
    }
    Meter meter = openTelemetry.getMeter(SCOPE);
    this.decisions =
        meter
            .counterBuilder(METRIC)
            .setDescription("HTTP requests decided by a sliding-window rate limit rule")
            .build();
    this.rejectedPaths =
        meter
            .counterBuilder(REJECTED_PATHS_METRIC)
            .setDescription("HTTP requests answered 400 by the path firewall, before any rule")
            .build();
    rejectedPaths.add(0);
  }

  @Override
  public void onRule(HttpRule rule) {
    decisions.add(0, attributes(rule, "allowed"));
    decisions.add(0, attributes(rule, "refused"));
    decisions.add(0, attributes(rule, "errored"));
  }

  @Override
  public void onAllowed(HttpRule rule, Decision decision) {
    decisions.add(1, attributes(rule, "allowed"));
    Span span = Span.current();
    if (span.isRecording()) {
      span.addEvent(
          DECISION_EVENT,
          event(rule, "allowed").put(EVENT_REMAINING, decision.remaining()).build());
    }
  }

  @Override
  public void onRefused(HttpRule rule, Decision decision, boolean dryRun) {
    decisions.add(1, attributes(rule, "refused"));
    Span span = Span.current();
    if (span.isRecording()) {
      long nanos = decision.retryAfter().toNanos();
      long millis = nanos / 1_000_000L + (nanos % 1_000_000L == 0 ? 0 : 1);
      span.addEvent(
          DECISION_EVENT,
          event(rule, "refused")
              .put(EVENT_REMAINING, 0L)
              .put(EVENT_RETRY_AFTER_MS, millis)
              .build());
    }
  }

  @Override
  public void onError(HttpRule rule, RuntimeException error) {
    decisions.add(1, attributes(rule, "errored"));
    Span span = Span.current();
    if (span.isRecording()) {
      span.addEvent(
          DECISION_EVENT,
          event(rule, "errored").put(EVENT_ERROR_TYPE, error.getClass().getName()).build());
    }
  }

  @Override
  public void onRejectedPath(String method, String requestUri, String reason) {
    rejectedPaths.add(1);
  }

  private static String mode(HttpRule rule) {
    return rule.dryRun() ? "dry-run" : "enforce";
  }

  private Attributes attributes(HttpRule rule, String outcome) {
    String mode = mode(rule);
    return series.computeIfAbsent(
        rule.name() + '\u0000' + outcome + '\u0000' + mode,
        k -> Attributes.of(RULE, rule.name(), OUTCOME, outcome, MODE, mode));
  }

  private static AttributesBuilder event(HttpRule rule, String outcome) {
    return Attributes.builder()
        .put(EVENT_RULE, rule.name())
        .put(EVENT_OUTCOME, outcome)
        .put(EVENT_MODE, mode(rule));
  }
}
