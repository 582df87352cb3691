package io.slidingwindow.spring.boot.dashboard;

import io.slidingwindow.Decision;
import io.slidingwindow.dashboard.DashboardFeed;
import io.slidingwindow.dashboard.DecisionRecorder;
import io.slidingwindow.dashboard.DecisionRecorder.Outcome;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.PathPattern;
import io.slidingwindow.http.RateLimitListener;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Records the decisions of the application's HTTP rules for the dashboard feed that the {@code
 * slidingwindow} actuator endpoint answers: per second the decisions, refusals and dry-run refusals
 * of each rule, and the keys refused most, in a {@link DecisionRecorder} whose memory is bounded
 * whatever the clients send (at most {@value DecisionRecorder#MAX_KEYS_PER_SECOND} keys a second,
 * each cut to {@value DecisionRecorder#MAX_KEY_CHARS} characters; the feed shows each as its source
 * and a short hash, {@link DecisionRecorder#shownKey}, never the key). Every rule is recorded under
 * one domain, the application's name; the configuration shown is every rule an enforcer was built
 * with (the filter's, {@code @RateLimit}'s), at most {@value #MAX_RULES}.
 *
 * <p>The bean {@code slidingwindowDashboardListener} of {@link
 * SlidingWindowEndpointAutoConfiguration}, which the endpoint reads; an application replaces it by
 * defining a bean of this type (for another domain or recorder). Thread-safe and non-blocking, as a
 * listener must be.
 */
public final class DashboardRateLimitListener implements RateLimitListener {

  /** The most rules kept for the configuration shown. */
  public static final int MAX_RULES = 1000;

  private final String domain;
  private final DecisionRecorder recorder;
  private final String backend;
  private final Map<String, HttpRule> rules = new ConcurrentHashMap<>();

  /**
   * Creates a listener.
   *
   * @param domain the domain the rules are shown under, the application's name
   * @param recorder where the decisions go
   * @param backend where the counts live, {@code "memory"} or {@code "redis"}
   * @throws IllegalArgumentException if an argument is null
   */
  public DashboardRateLimitListener(String domain, DecisionRecorder recorder, String backend) {
    if (domain == null || recorder == null || backend == null) {
      throw new IllegalArgumentException(
          "domain, recorder and backend must not be null, were "
              + domain
              + ", "
              + recorder
              + ", "
              + backend);
    }
    this.domain = domain;
    this.recorder = recorder;
    this.backend = backend;
  }

  @Override
  public void onRule(HttpRule rule) {
    if (rules.size() < MAX_RULES || rules.containsKey(rule.name())) {
      rules.put(rule.name(), rule);
    }
  }

  @Override
  public void onAllowed(HttpRule rule, Decision decision, String key) {
    recorder.record(domain, rule.name(), Outcome.ALLOWED, null);
  }

  @Override
  public void onRefused(HttpRule rule, Decision decision, boolean dryRun, String key) {
    recorder.record(domain, rule.name(), dryRun ? Outcome.DRY_RUN_REFUSED : Outcome.REFUSED, key);
  }

  /**
   * Forgets the rules {@code names}, taken out of service by a reload: they leave the configuration
   * shown, and their series leave the feed (until a rule of the same name comes back).
   */
  void forgetRules(Collection<String> names) {
    rules.keySet().removeAll(names);
  }

  /** The dashboard feed: see {@link DashboardFeed}. */
  public Map<String, Object> feed() {
    List<DashboardFeed.Rule> shown = new ArrayList<>();
    for (HttpRule rule : new TreeMap<>(rules).values()) {
      shown.add(
          new DashboardFeed.Rule(
              rule.name(),
              rule.name(),
              DashboardFeed.limits(rule.limits()),
              rule.dryRun(),
              source(rule)));
    }
    DashboardFeed.Configuration configuration =
        new DashboardFeed.Configuration(
            "application properties and @RateLimit",
            null,
            List.of(new DashboardFeed.Domain(domain, shown)));
    DecisionRecorder.Snapshot all = recorder.snapshot();
    List<DecisionRecorder.Series> inService = new ArrayList<>();
    for (DecisionRecorder.Series series : all.rules()) {
      if (!series.domain().equals(domain) || rules.containsKey(series.rule())) {
        inService.add(series);
      }
    }
    List<DecisionRecorder.TopKey> top = new ArrayList<>();
    for (DecisionRecorder.TopKey key : all.topRefused()) {
      if (!key.key().domain().equals(domain) || rules.containsKey(key.key().rule())) {
        top.add(key);
      }
    }
    DecisionRecorder.Snapshot shownSnapshot =
        new DecisionRecorder.Snapshot(all.seconds(), all.domains(), inService, top);
    return DashboardFeed.of(shownSnapshot, configuration, Map.of("backend", backend));
  }

  /**
   * What a rule applies to, for example {@code GET, POST /api/**}, or for an annotation's rule the
   * annotated method ({@code @RateLimit on com.example.Api.order(String)}).
   */
  private static String source(HttpRule rule) {
    if (rule.declaredOn() != null) {
      return rule.declaredOn();
    }
    String methods =
        rule.methods().isEmpty() ? "" : String.join(", ", new TreeSet<>(rule.methods()));
    List<String> paths = new ArrayList<>();
    for (PathPattern pattern : rule.paths()) {
      paths.add(pattern.toString());
    }
    String where = paths.isEmpty() ? "every path" : String.join(" ", paths);
    return methods.isEmpty() ? where : methods + " " + where;
  }
}
