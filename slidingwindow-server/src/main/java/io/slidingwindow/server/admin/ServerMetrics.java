package io.slidingwindow.server.admin;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.slidingwindow.dashboard.DecisionRecorder;
import io.slidingwindow.server.config.ConfigWatcher;
import io.slidingwindow.server.config.RateLimitConfig;
import io.slidingwindow.server.config.Rule;
import io.slidingwindow.server.decide.AdminOverrides;
import io.slidingwindow.server.decide.DecisionEvents;
import io.slidingwindow.server.decide.DecisionRequest;
import io.slidingwindow.server.decide.Decisions;
import io.slidingwindow.server.decide.Decisions.Outcome;
import io.slidingwindow.server.decide.Decisions.Status;
import io.slidingwindow.server.decide.Decisions.Verdict;
import io.slidingwindow.server.decide.ServiceHealth;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The service's Prometheus metrics, fed by every decision, and the dashboard's recorder.
 *
 * <ul>
 *   <li>{@code slidingwindow_server_decisions_total{domain, descriptor, outcome}}: one per decided
 *       descriptor; {@code descriptor} is the matched rule's path in the configuration (empty when
 *       none matched, {@code override} for a descriptor's own limit), so its values are bounded by
 *       the configuration, never by requests; {@code outcome} is ok, over_limit, shadow_over_limit,
 *       unlimited, unmatched or bad_override (a limit of its own that cannot be counted, answered
 *       OVER_LIMIT).
 *   <li>{@code slidingwindow_server_requests_seconds{transport}}: a latency histogram of decided
 *       requests, per transport (grpc, http).
 *   <li>{@code slidingwindow_server_request_errors_total{transport, reason}}: requests refused
 *       (invalid_argument, not_found, invalid_utf8, malformed, malformed_json,
 *       unsupported_media_type, browser_origin, internal; on the admin port, transport admin, also
 *       unauthorized and host_not_allowed) and connections ended by a bound (too_many_connections,
 *       read_timeout, malformed_http, too_large).
 *   <li>{@code slidingwindow_server_backend_errors_total{backend}}: decisions the store failed (no
 *       answer within the timeout, an error, an open breaker), answered by the failure policy.
 *   <li>{@code slidingwindow_server_ready}: 1 while ready, 0 while not.
 *   <li>{@code slidingwindow_server_config_reloads_total{result}}: reloads, success or failure.
 *   <li>{@code slidingwindow_server_admin_overrides}: the run-time overrides set on the admin port
 *       now.
 * </ul>
 *
 * <p>Each counter is looked up once and kept (per rule, per domain), so recording a decision is a
 * few map reads and atomic additions. Thread-safe.
 */
public final class ServerMetrics implements DecisionEvents, ConfigWatcher.Listener {

  private static final int OUTCOMES = Outcome.values().length;

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final VerdictRecorder recorder = new VerdictRecorder(DecisionRecorder.system());
  private final Map<Rule, Counter[]> byRule = new ConcurrentHashMap<>();
  private final Map<String, Counter[]> unmatched = new ConcurrentHashMap<>();
  private final Map<String, Counter[]> overrides = new ConcurrentHashMap<>();
  private final Map<String, Map<String, Counter>> errors = new ConcurrentHashMap<>();
  private final Timer grpcTimer = timer(GRPC);
  private final Timer httpTimer = timer(HTTP);

  /** Metrics of a service whose store's health is {@code health}. */
  public ServerMetrics(ServiceHealth health, String backend) {
    FunctionCounter.builder(
            "slidingwindow.server.backend.errors", health, ServiceHealth::backendErrors)
        .description("Decisions the store failed, answered by the failure policy")
        .tag("backend", backend)
        .register(registry);
    Gauge.builder("slidingwindow.server.ready", health, h -> h.ready() ? 1 : 0)
        .description("1 while the service is ready for calls, else 0")
        .register(registry);
    for (String transport : new String[] {GRPC, HTTP}) {
      errors.put(transport, new ConcurrentHashMap<>());
    }
  }

  /** Reports the number of {@code overrides} kept. */
  public void adminOverrides(AdminOverrides overrides) {
    Gauge.builder("slidingwindow.server.admin.overrides", overrides, AdminOverrides::size)
        .description("Run-time overrides set on the admin port")
        .register(registry);
  }

  /** The recent decisions, per second, for the dashboard. */
  public VerdictRecorder recorder() {
    return recorder;
  }

  @Override
  public void decided(String transport, DecisionRequest request, Verdict verdict, long nanos) {
    String domain = request.domain();
    for (int d = 0; d < verdict.size(); d++) {
      Status status = verdict.status(d);
      counter(domain, status).increment();
    }
    recorder.record(request, verdict);
    (GRPC.equals(transport) ? grpcTimer : httpTimer).record(nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void refused(String transport, String reason) {
    errors
        .computeIfAbsent(transport, t -> new ConcurrentHashMap<>())
        .computeIfAbsent(
            reason,
            r ->
                Counter.builder("slidingwindow.server.request.errors")
                    .description(
                        "Requests refused as malformed, failed or not allowed, connections ended")
                    .tags("transport", transport, "reason", r)
                    .register(registry))
        .increment();
  }

  @Override
  public void apply(RateLimitConfig config) {
    byRule.clear(); // the old rules' counters stay registered; new rules look theirs up again
  }

  @Override
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

  @SuppressWarnings("EnumOrdinal") // the outcome's slot in a per-rule array of its counters
  private Counter counter(String domain, Status status) {
    Counter[] counters;
    Rule rule = status.rule();
    if (rule != null) {
      counters = byRule.computeIfAbsent(rule, r -> new Counter[OUTCOMES]);
    } else if (Decisions.OVERRIDE_TAG.equals(status.tag())) {
      counters = overrides.computeIfAbsent(domain, r -> new Counter[OUTCOMES]);
    } else {
      counters = unmatched.computeIfAbsent(domain, r -> new Counter[OUTCOMES]);
    }
    int slot = status.outcome().ordinal();
    Counter counter = counters[slot];
    if (counter == null) {
      // Registering twice answers the same counter, so a race here costs nothing but time.
      counter =
          Counter.builder("slidingwindow.server.decisions")
              .description("Descriptors decided, by domain, matched rule and outcome")
              .tags("domain", domain, "descriptor", status.tag(), "outcome", status.outcome().tag())
              .register(registry);
      counters[slot] = counter;
    }
    return counter;
  }

  private Timer timer(String transport) {
    return Timer.builder("slidingwindow.server.requests")
        .description("Time to decide a request")
        .tag("transport", transport)
        .publishPercentileHistogram()
        .register(registry);
  }
}
