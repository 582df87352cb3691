package io.slidingwindow.server.admin;

import io.slidingwindow.dashboard.DashboardFeed;
import io.slidingwindow.dashboard.DashboardFeed.Configuration;
import io.slidingwindow.dashboard.DashboardFeed.Domain;
import io.slidingwindow.dashboard.DashboardPage;
import io.slidingwindow.server.config.ConfigWatcher;
import io.slidingwindow.server.config.RateLimitConfig;
import io.slidingwindow.server.config.Rule;
import io.slidingwindow.server.decide.Decider;
import io.slidingwindow.server.decide.ServiceHealth;
import io.slidingwindow.server.http.Exchange;
import io.slidingwindow.server.http.Router;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The live dashboard: {@code GET /v1/dashboard} answers the recent decisions, the most refused
 * descriptors, the loaded configuration and the backend's health as JSON ({@link DashboardFeed},
 * the same document as the Spring Boot starter's actuator endpoint; see {@code docs/server.md});
 * {@code GET /} and {@code GET /dashboard} (on the admin port) answer a page that polls it every
 * second and draws it with uPlot. The page, its script and style, and uPlot's ({@link
 * DashboardPage}, shared with the starter) are served under {@code /dashboard/}; the page loads
 * nothing from other hosts and runs no inline script (a Content-Security-Policy forbids it).
 */
public final class Dashboard {

  private static final String FEED = "/v1/dashboard";

  @SuppressWarnings("ArrayRecordComponent") // loaded once, served as is, never compared
  private record Resource(String type, byte[] bytes) {}

  private final Decider decider;
  private final VerdictRecorder recorder;
  private final ConfigWatcher watcher;
  private final ServiceHealth health;
  private final Map<String, Resource> resources = new LinkedHashMap<>();

  /**
   * Creates the dashboard of a service.
   *
   * @throws IllegalStateException if the page's files or uPlot's are missing from the classpath
   */
  public Dashboard(
      Decider decider, VerdictRecorder recorder, ConfigWatcher watcher, ServiceHealth health) {
    this.decider = decider;
    this.recorder = recorder;
    this.watcher = watcher;
    this.health = health;
    DashboardPage files = DashboardPage.load();
    Resource page = resource(files.page(FEED));
    resources.put("/", page);
    resources.put("/dashboard", page);
    for (String name : DashboardPage.FILES) {
      resources.put("/dashboard/" + name, resource(files.file(name).orElseThrow()));
    }
  }

  /** Adds the page, its files and {@code /v1/dashboard} to {@code router}. */
  public void addTo(Router router) {
    router.add(
        "GET",
        FEED,
        e ->
            e.respond(
                200,
                "application/json",
                DashboardFeed.toJson(snapshot()).getBytes(StandardCharsets.UTF_8),
                "Cache-Control",
                "no-store"));
    resources.forEach((path, resource) -> router.add("GET", path, e -> send(e, resource)));
  }

  /** The body of {@code GET /v1/dashboard}: see {@link DashboardFeed}. */
  public Map<String, Object> snapshot() {
    return DashboardFeed.of(recorder.recorder().snapshot(), config(), backendHealth());
  }

  private Configuration config() {
    RateLimitConfig config = decider.config();
    List<Domain> domains = new ArrayList<>();
    for (String domain : config.domains()) {
      List<DashboardFeed.Rule> rules = new ArrayList<>();
      for (Rule rule : config.rules()) {
        if (domain.equals(rule.domain())) {
          rules.add(
              new DashboardFeed.Rule(
                  rule.path(), rule.name(), limits(rule), rule.shadowMode(), rule.source()));
        }
      }
      domains.add(new Domain(domain, rules));
    }
    return new Configuration(watcher.path().toString(), watcher.lastError(), domains);
  }

  /** The store that holds the counts and its state: see {@link ServiceHealth#describe()}. */
  Map<String, Object> backendHealth() {
    return health.describe();
  }

  /** A rule's limits as text, for example {@code "5 per 10s, 100 per 90s"}. */
  static String limits(Rule rule) {
    if (rule.kind() == Rule.Kind.UNLIMITED) {
      return "unlimited";
    }
    if (rule.kind() == Rule.Kind.BLOCKED) {
      return "0 per " + DashboardFeed.window(rule.blockedUnit().length()) + " (always refused)";
    }
    return DashboardFeed.limits(rule.limits());
  }

  private static Resource resource(DashboardPage.File file) {
    return new Resource(file.contentType(), file.bytes());
  }

  private static void send(Exchange exchange, Resource resource) {
    exchange.respond(
        200,
        resource.type(),
        resource.bytes(),
        "Content-Security-Policy",
        DashboardPage.CONTENT_SECURITY_POLICY,
        "X-Content-Type-Options",
        "nosniff",
        "Referrer-Policy",
        "no-referrer");
  }
}
