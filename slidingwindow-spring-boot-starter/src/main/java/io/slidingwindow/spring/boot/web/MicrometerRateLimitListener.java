package io.slidingwindow.spring.boot.web;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.slidingwindow.Decision;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimitListener;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts decisions per rule in Micrometer: the counter {@value #METRIC} with tags {@code rule},
 * {@code outcome} ({@code allowed}, {@code refused}, {@code errored}) and {@code mode} ({@code
 * enforce} or {@code dry-run}). A dry-run rule's would-be refusals are {@code refused} with {@code
 * mode=dry-run}; the request went on. The three counters of a rule are registered, at zero, when an
 * enforcer is built with the rule, so that every series exists before the first request.
 *
 * <p>Requests the path firewall answered 400 are counted apart, by the untagged counter {@value
 * #REJECTED_PATHS_METRIC}: no rule saw them, and a meter name keeps one set of tag keys (Prometheus
 * needs it). It is registered at zero with this listener. Requests whose key a rule's limiter had
 * no room to track (see {@link io.slidingwindow.KeyOverflow}) are counted by {@value
 * #KEY_OVERFLOWS_METRIC}, tag {@code rule}, registered at zero with the rule. Thread-safe.
 *
 * <p>The starter tells one on the application's {@code MeterRegistry}, when there is one, besides
 * the application's {@code RateLimitListener} beans; an application that defines a bean of this
 * type (on another registry, say) has it take that one's place.
 */
public final class MicrometerRateLimitListener implements RateLimitListener {

  /** The counter's name. */
  public static final String METRIC = "slidingwindow.http.requests";

  /** The counter of requests whose key a rule's limiter had no room to track. */
  public static final String KEY_OVERFLOWS_METRIC = "slidingwindow.http.key.overflows";

  /** The counter of requests the path firewall answered 400. */
  public static final String REJECTED_PATHS_METRIC = "slidingwindow.http.rejected.paths";

  private static final List<String> OUTCOMES = List.of("allowed", "refused", "errored");

  private final MeterRegistry registry;
  private final ConcurrentHashMap<String, Counter> counters = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Counter> overflows = new ConcurrentHashMap<>();
  private final Counter rejectedPaths;

  /**
   * Counts into {@code registry}.
   *
   * @throws IllegalArgumentException if {@code registry} is null
   */
  public MicrometerRateLimitListener(MeterRegistry registry) {
    if (registry == null) {
      throw new IllegalArgumentException("registry must not be null");
    }
    this.registry = registry;
    this.rejectedPaths =
        Counter.builder(REJECTED_PATHS_METRIC)
            .description("HTTP requests answered 400 by the path firewall, before any rule")
            .register(registry);
  }

  @Override
  public void onRule(HttpRule rule) {
    for (String outcome : OUTCOMES) {
      counter(rule, outcome);
    }
    overflows(rule);
  }

  @Override
  public void onKeyOverflow(HttpRule rule) {
    overflows(rule).increment();
  }

  private Counter overflows(HttpRule rule) {
    return overflows.computeIfAbsent(
        rule.name(),
        name ->
            Counter.builder(KEY_OVERFLOWS_METRIC)
                .description(
                    "HTTP requests whose key a rate limit rule had no room to track, answered by"
                        + " its key overflow policy")
                .tag("rule", name)
                .register(registry));
  }

  @Override
  public void onAllowed(HttpRule rule, Decision decision) {
    counter(rule, "allowed").increment();
  }

  @Override
  public void onRefused(HttpRule rule, Decision decision, boolean dryRun) {
    counter(rule, "refused").increment();
  }

  @Override
  public void onError(HttpRule rule, RuntimeException error) {
    counter(rule, "errored").increment();
  }

  @Override
  public void onRejectedPath(String method, String requestUri, String reason) {
    rejectedPaths.increment();
  }

  private Counter counter(HttpRule rule, String outcome) {
    String mode = rule.dryRun() ? "dry-run" : "enforce";
    return counters.computeIfAbsent(
        rule.name() + '\u0000' + outcome + '\u0000' + mode,
        k ->
            Counter.builder(METRIC)
                .description("HTTP requests decided by a sliding-window rate limit rule")
                .tag("rule", rule.name())
                .tag("outcome", outcome)
                .tag("mode", mode)
                .register(registry));
  }
}
