package io.slidingwindow.server.internal;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.slidingwindow.dashboard.DashboardFeed;
import io.slidingwindow.dashboard.DashboardFeed.Configuration;
import io.slidingwindow.dashboard.DashboardFeed.Domain;
import io.slidingwindow.dashboard.DashboardPage;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The live dashboard: {@code GET /v1/dashboard} answers the recent decisions, the most refused
 * descriptors, the loaded configuration and the backend's health as JSON ({@link DashboardFeed},
 * the same document as the Spring Boot starter's actuator endpoint; see {@code docs/server.md});
 * {@code GET /} and {@code GET /dashboard} answer a page that polls it every second and draws it
 * with uPlot. The page, its script and style, and uPlot's ({@link DashboardPage}, shared with the
 * starter) are served under {@code /dashboard/}; the page loads nothing from other hosts and runs
 * no inline script (a Content-Security-Policy forbids it).
 */
public final class Dashboard {

  private static final String FEED = "/v1/dashboard";

  @SuppressWarnings("ArrayRecordComponent") // loaded once, served as is, never compared
  private record Resource(String type, byte[] bytes) {}

  private final Decider decider;
  private final VerdictRecorder recorder;
  private final ConfigWatcher watcher;
  private final Map<String, Resource> resources = new LinkedHashMap<>();

  /**
   * Creates the dashboard of a service.
   *
   * @throws IllegalStateException if the page's files or uPlot's are missing from the classpath
   */
  public Dashboard(Decider decider, VerdictRecorder recorder, ConfigWatcher watcher) {
    this.decider = decider;
    this.recorder = recorder;
    this.watcher = watcher;
    DashboardPage files = DashboardPage.load();
    Resource page = resource(files.page(FEED));
    resources.put("/", page);
    resources.put("/dashboard", page);
    for (String name : DashboardPage.FILES) {
      resources.put("/dashboard/" + name, resource(files.file(name).orElseThrow()));
    }
  }

  /**
   * Registers the page, its files and {@code /v1/dashboard} on {@code server}, guarded by {@code
   * api}.
   */
  public void register(HttpServer server, HttpApi api) {
    server.createContext(FEED, api.guarded("GET", this::answerJson));
    resources.forEach(
        (path, resource) -> server.createContext(path, api.guarded("GET", e -> send(e, resource))));
  }

  private void answerJson(HttpExchange exchange) throws IOException {
    byte[] body = DashboardFeed.toJson(snapshot()).getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    send(exchange, new Resource("application/json", body));
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

  /**
   * The health of the store that holds the counts: {@code {"backend": "memory"}} while counts live
   * in this process.
   */
  Map<String, Object> backendHealth() {
    return Map.of("backend", "memory");
  }

  /** A rule's limits as text, for example {@code "5 per 10s, 100 per 90s"}. */
  static String limits(Rule rule) {
    if (rule.unlimited()) {
      return "unlimited";
    }
    if (rule.blocked()) {
      return "0 per " + DashboardFeed.window(rule.blockedUnit().length()) + " (always refused)";
    }
    return DashboardFeed.limits(rule.limits());
  }

  private static Resource resource(DashboardPage.File file) {
    return new Resource(file.contentType(), file.bytes());
  }

  private static void send(HttpExchange exchange, Resource resource) throws IOException {
    var headers = exchange.getResponseHeaders();
    headers.set("Content-Type", resource.type());
    headers.set("Content-Security-Policy", DashboardPage.CONTENT_SECURITY_POLICY);
    headers.set("X-Content-Type-Options", "nosniff");
    headers.set("Referrer-Policy", "no-referrer");
    exchange.sendResponseHeaders(200, resource.bytes().length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(resource.bytes());
    }
  }
}
