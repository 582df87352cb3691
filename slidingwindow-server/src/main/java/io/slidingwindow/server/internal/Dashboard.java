package io.slidingwindow.server.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.slidingwindow.Limit;
import io.slidingwindow.server.internal.DecisionRecorder.Series;
import io.slidingwindow.server.internal.DecisionRecorder.Snapshot;
import io.slidingwindow.server.internal.DecisionRecorder.TopKey;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The live dashboard: {@code GET /v1/dashboard} answers the recent decisions, the most refused
 * descriptors, the loaded configuration and the backend's health as JSON (see {@code
 * docs/server.md}); {@code GET /} and {@code GET /dashboard} answer a page that polls it every
 * second and draws it with uPlot. The page, its script and style, and uPlot's (from the {@code
 * org.webjars.npm:uplot} jar) are served from the classpath under {@code /dashboard/}; the page
 * loads nothing from other hosts and runs no inline script (a Content-Security-Policy forbids it).
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
  private final DecisionRecorder recorder;
  private final ConfigWatcher watcher;
  private final ObjectMapper json = new ObjectMapper();
  private final Map<String, Resource> resources = new LinkedHashMap<>();

  /**
   * Creates the dashboard of a service.
   *
   * @throws IllegalStateException if the page's files or uPlot's are missing from the classpath
   */
  public Dashboard(Decider decider, DecisionRecorder recorder, ConfigWatcher watcher) {
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
    byte[] body = json.writeValueAsBytes(snapshot());
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    send(exchange, new Resource("application/json", body));
  }

  /** The body of {@code GET /v1/dashboard}. */
  public ObjectNode snapshot() {
    Snapshot snapshot = recorder.snapshot();
    ObjectNode answer = json.createObjectNode();
    ArrayNode seconds = answer.putArray("seconds");
    for (long second : snapshot.seconds()) {
      seconds.add(second);
    }
    ArrayNode domains = answer.putArray("domains");
    for (Series series : snapshot.domains()) {
      series(domains.addObject().put("domain", series.domain()), series);
    }
    ArrayNode rules = answer.putArray("rules");
    for (Series series : snapshot.rules()) {
      series(rules.addObject().put("domain", series.domain()).put("rule", series.rule()), series);
    }
    answer.put("topWindowSeconds", DecisionRecorder.TOP_WINDOW_SECONDS);
    ArrayNode top = answer.putArray("topRefused");
    for (TopKey key : snapshot.topRefused()) {
      top.addObject()
          .put("domain", key.key().domain())
          .put("rule", key.key().rule())
          .put("descriptor", key.key().key())
          .put("refusals", key.refusals());
    }
    answer.set("config", config());
    answer.set("backend", backendHealth());
    return answer;
  }

  private static void series(ObjectNode out, Series series) {
    ArrayNode decisions = out.putArray("decisions");
    for (long n : series.decisions()) {
      decisions.add(n);
    }
    ArrayNode refusals = out.putArray("refusals");
    for (long n : series.refusals()) {
      refusals.add(n);
    }
  }

  private ObjectNode config() {
    RateLimitConfig config = decider.config();
    ObjectNode out = json.createObjectNode();
    out.put("path", watcher.path().toString());
    out.put("lastReloadError", watcher.lastError());
    ArrayNode domains = out.putArray("domains");
    for (String domain : config.domains()) {
      ObjectNode domainNode = domains.addObject().put("domain", domain);
      ArrayNode rules = domainNode.putArray("rules");
      for (Rule rule : config.rules()) {
        if (domain.equals(rule.domain())) {
          rules
              .addObject()
              .put("rule", rule.path())
              .put("name", rule.name())
              .put("limits", limits(rule))
              .put("shadowMode", rule.shadowMode())
              .put("source", rule.source());
        }
      }
    }
    return out;
  }

  /**
   * The health of the store that holds the counts: {@code {"backend": "memory"}} while counts live
   * in this process.
   */
  ObjectNode backendHealth() {
    return json.createObjectNode().put("backend", "memory");
  }

  /** A rule's limits as text, for example {@code "5 per 10s, 100 per 90s"}. */
  static String limits(Rule rule) {
    if (rule.unlimited()) {
      return "unlimited";
    }
    if (rule.blocked()) {
      return "0 per " + window(rule.blockedUnit().length()) + " (always refused)";
    }
    List<String> parts = new ArrayList<>(rule.limits().size());
    for (Limit limit : rule.limits()) {
      parts.add(limit.permits() + " per " + window(limit.window()));
    }
    return String.join(", ", parts);
  }

  /** A window as a whole number of the largest unit that divides it: {@code 90s}, {@code 1d}. */
  static String window(Duration window) {
    long nanos;
    try {
      nanos = window.toNanos();
    } catch (ArithmeticException e) {
      return window.toString();
    }
    long[] sizes = {
      86_400_000_000_000L,
      3_600_000_000_000L,
      60_000_000_000L,
      1_000_000_000L,
      1_000_000L,
      1_000L,
      1L
    };
    String[] names = {"d", "h", "m", "s", "ms", "us", "ns"};
    for (int i = 0; i < sizes.length; i++) {
      if (nanos % sizes[i] == 0) {
        return nanos / sizes[i] + names[i];
      }
    }
    return window.toString();
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
