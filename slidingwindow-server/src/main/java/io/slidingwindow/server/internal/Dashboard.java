package io.slidingwindow.server.internal;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.slidingwindow.dashboard.DashboardFeed;
import io.slidingwindow.dashboard.DashboardFeed.Configuration;
import io.slidingwindow.dashboard.DashboardFeed.Domain;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The live dashboard: {@code GET /v1/dashboard} answers the recent decisions, the most refused
 * descriptors, the loaded configuration and the backend's health as JSON ({@link DashboardFeed},
 * the same document as the Spring Boot starter's actuator endpoint; see {@code docs/server.md});
 * {@code GET /} and {@code GET /dashboard} answer a page that polls it every second and draws it
 * with uPlot. The page, its script and style, and uPlot's (from the {@code org.webjars.npm:uplot}
 * jar) are served from the classpath under {@code /dashboard/}; the page loads nothing from other
 * hosts and runs no inline script (a Content-Security-Policy forbids it).
 */
public final class Dashboard {

  private static final String RESOURCES = "/io/slidingwindow/server/dashboard/";
  private static final String UPLOT_POM = "/META-INF/maven/org.webjars.npm/uplot/pom.properties";
  private static final String CONTENT_SECURITY_POLICY =
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
          + "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

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
    Resource page = load(RESOURCES + "index.html", "text/html; charset=utf-8");
    resources.put("/", page);
    resources.put("/dashboard", page);
    resources.put(
        "/dashboard/dashboard.js",
        load(RESOURCES + "dashboard.js", "text/javascript; charset=utf-8"));
    resources.put(
        "/dashboard/dashboard.css", load(RESOURCES + "dashboard.css", "text/css; charset=utf-8"));
    String uplot = "/META-INF/resources/webjars/uplot/" + uplotVersion() + "/dist/";
    resources.put(
        "/dashboard/uPlot.iife.min.js",
        load(uplot + "uPlot.iife.min.js", "text/javascript; charset=utf-8"));
    resources.put(
        "/dashboard/uPlot.min.css", load(uplot + "uPlot.min.css", "text/css; charset=utf-8"));
  }

  /**
   * Registers the page, its files and {@code /v1/dashboard} on {@code server}, guarded by {@code
   * api}.
   */
  public void register(HttpServer server, HttpApi api) {
    server.createContext("/v1/dashboard", api.guarded("GET", this::answerJson));
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

  private static String uplotVersion() {
    try (InputStream in = Dashboard.class.getResourceAsStream(UPLOT_POM)) {
      if (in == null) {
        throw new IllegalStateException("uPlot is missing from the classpath: no " + UPLOT_POM);
      }
      Properties properties = new Properties();
      properties.load(in);
      return properties.getProperty("version");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Resource load(String path, String type) {
    try (InputStream in = Dashboard.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("dashboard file missing from the classpath: " + path);
      }
      return new Resource(type, in.readAllBytes());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void send(HttpExchange exchange, Resource resource) throws IOException {
    var headers = exchange.getResponseHeaders();
    headers.set("Content-Type", resource.type());
    headers.set("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    headers.set("X-Content-Type-Options", "nosniff");
    headers.set("Referrer-Policy", "no-referrer");
    exchange.sendResponseHeaders(200, resource.bytes().length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(resource.bytes());
    }
  }
}
