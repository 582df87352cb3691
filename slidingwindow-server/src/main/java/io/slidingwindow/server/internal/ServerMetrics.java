package io.slidingwindow.server.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.slidingwindow.dashboard.DecisionRecorder;
import io.slidingwindow.server.internal.Decisions.Status;
import io.slidingwindow.server.internal.Decisions.Verdict;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The service's Prometheus metrics.
 *
 * <ul>
 *   <li>{@code slidingwindow_server_decisions_total{domain, descriptor, outcome}}: one per decided
 *       descriptor; {@code descriptor} is the matched rule's path in the configuration (empty when
 *       none matched), so its values are bounded by the configuration, never by requests; {@code
 *       outcome} is ok, over_limit, shadow_over_limit, unlimited or unmatched.
 *   <li>{@code slidingwindow_server_requests_seconds{transport}}: a latency histogram of decided
 *       requests, per transport (grpc, http).
 *   <li>{@code slidingwindow_server_request_errors_total{transport, reason}}: refused requests.
 *   <li>{@code slidingwindow_server_config_reloads_total{result}}: reloads, success or failure.
 * </ul>
 *
 * <p>Thread-safe.
 */
public final class ServerMetrics {

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Map<String, Timer> timers = new ConcurrentHashMap<>();
  private final VerdictRecorder recorder = new VerdictRecorder(DecisionRecorder.system());

  /** The recent decisions, per second, for the dashboard. */
  public VerdictRecorder recorder() {
    return recorder;
  }

  /** Records a decided request that took {@code nanos}. */
  public void decided(String transport, String domain, Verdict verdict, long nanos) {
    for (Status status : verdict.statuses()) {
      Counter.builder("slidingwindow.server.decisions")
          .description("Descriptors decided, by domain, matched rule and outcome")
          .tags("domain", domain, "descriptor", status.rule(), "outcome", status.outcome().tag())
          .register(registry)
          .increment();
    }
    timers
        .computeIfAbsent(
            transport,
            t ->
                Timer.builder("slidingwindow.server.requests")
                    .description("Time to decide a request")
                    .tag("transport", t)
                    .publishPercentileHistogram()
                    .register(registry))
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  /** Records a request refused for {@code reason} (a bounded set of words). */
  public void refused(String transport, String reason) {
    Counter.builder("slidingwindow.server.request.errors")
        .description("Requests refused as malformed or failed")
        .tags("transport", transport, "reason", reason)
        .register(registry)
        .increment();
  }

  /** Records a configuration reload. */
  public void reloaded(boolean success) {
    Counter.builder("slidingwindow.server.config.reloads")
        .description("Configuration reloads")
        .tag("result", success ? "success" : "failure")
        .register(registry)
        .increment();
  }

  /** The metrics in Prometheus's text format. */
  public String scrape() {
    return registry.scrape();
  }
}
