package io.slidingwindow.server.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitRequest;
import io.slidingwindow.server.internal.Decisions.BadRequest;
import io.slidingwindow.server.internal.Decisions.Descriptor;
import io.slidingwindow.server.internal.Decisions.Entry;
import io.slidingwindow.server.internal.Decisions.Status;
import io.slidingwindow.server.internal.Decisions.Verdict;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The HTTP endpoints, on the JDK's {@link HttpServer}:
 *
 * <ul>
 *   <li>{@code POST /v1/decide}: a JSON request {@code {"domain": "...", "hits": 1, "descriptors":
 *       [{"entries": [{"key": "...", "value": "..."}], "hits": 2}]}}; answers 200 when allowed, 429
 *       when over limit, with the statuses as JSON; 400 for malformed JSON or a malformed request,
 *       404 for an unknown domain, 413 for a body over {@value #MAX_BODY_BYTES} bytes, 405 for
 *       another method.
 *   <li>{@code POST /json}: envoyproxy/ratelimit's endpoint: a {@code RateLimitRequest} in
 *       protobuf's JSON mapping, answered with a {@code RateLimitResponse} the same way; 200 when
 *       allowed, 429 when over limit, 400 or 404 (as above) with {@code {"error": ...}}.
 *   <li>{@code GET /metrics}: Prometheus's text format.
 *   <li>{@code GET /healthcheck}: 200 {@code OK}.
 *   <li>{@code GET /v1/stats}: the loaded domains, rule count and last reload error as JSON.
 * </ul>
 */
public final class HttpApi {

  private static final System.Logger LOG = System.getLogger(HttpApi.class.getName());

  /** The largest request body read. */
  public static final int MAX_BODY_BYTES = 1 << 20;

  private final Decider decider;
  private final ServerMetrics metrics;
  private final ConfigWatcher watcher;
  private final ObjectMapper json = new ObjectMapper();
  private final AtomicInteger inFlight = new AtomicInteger();
  private volatile boolean draining;

  public HttpApi(Decider decider, ServerMetrics metrics, ConfigWatcher watcher) {
    this.decider = decider;
    this.metrics = metrics;
    this.watcher = watcher;
    json.getFactory()
        .setStreamReadConstraints(
            StreamReadConstraints.builder()
                .maxNestingDepth(16)
                .maxStringLength(MAX_BODY_BYTES)
                .build());
  }

  /** Registers the endpoints on {@code server}. */
  public void register(HttpServer server) {
    server.createContext("/v1/decide", guarded("POST", this::decide));
    server.createContext("/json", guarded("POST", this::envoyJson));
    server.createContext("/metrics", guarded("GET", this::metrics));
    server.createContext("/healthcheck", guarded("GET", e -> send(e, 200, "text/plain", "OK")));
    server.createContext("/v1/stats", guarded("GET", this::stats));
    new Dashboard(decider, metrics.recorder(), watcher).register(server, this);
  }

  interface Endpoint {
    void handle(HttpExchange exchange) throws IOException;
  }

  HttpHandler guarded(String method, Endpoint endpoint) {
    return exchange -> {
      // Counted before draining is read, so drain() either sees this exchange or refuses it.
      inFlight.incrementAndGet();
      try (exchange) {
        String path = exchange.getRequestURI().getPath();
        if (draining) {
          sendError(exchange, 503, "the rate limit service is shutting down");
        } else if (!path.equals(exchange.getHttpContext().getPath())) {
          sendError(exchange, 404, "no such endpoint: " + path);
        } else if (!exchange.getRequestMethod().equals(method)) {
          exchange.getResponseHeaders().set("Allow", method);
          sendError(exchange, 405, "use " + method + " for " + path);
        } else {
          endpoint.handle(exchange);
        }
      } catch (IOException e) {
        LOG.log(Level.DEBUG, "HTTP exchange failed", e);
      } catch (RuntimeException e) {
        LOG.log(Level.ERROR, "HTTP request failed", e);
        metrics.refused("http", "internal");
        try {
          sendError(exchange, 500, "the rate limit service failed");
        } catch (IOException | RuntimeException ignored) {
          // The response may have been started; the exchange is closed either way.
        }
      } finally {
        inFlight.decrementAndGet();
      }
    };
  }

  /**
   * Answers new requests with 503 from now on and waits until the requests in flight have been
   * answered, or {@code timeoutNanos} passed.
   *
   * @return whether every request in flight was answered
   */
  public boolean drain(long timeoutNanos) {
    draining = true;
    long deadline = System.nanoTime() + timeoutNanos;
    while (inFlight.get() > 0) {
      if (deadline - System.nanoTime() <= 0) {
        return false;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }
    return true;
  }

  private void decide(HttpExchange exchange) throws IOException {
    long start = System.nanoTime();
    byte[] body = readBody(exchange);
    if (body == null) {
      metrics.refused("http", "too_large");
      sendError(exchange, 413, "the body must be at most " + MAX_BODY_BYTES + " bytes");
      return;
    }
    JsonNode request;
    try {
      request = json.readTree(body);
    } catch (JsonProcessingException e) {
      metrics.refused("http", "malformed_json");
      sendError(exchange, 400, "malformed JSON: " + e.getOriginalMessage());
      return;
    }
    Verdict verdict;
    String domain;
    try {
      if (request == null || !request.isObject()) {
        throw invalid("the body must be a JSON object");
      }
      domain = text(request, "domain", "domain", true);
      long hits = hits(request.get("hits"), "hits");
      List<Descriptor> descriptors = descriptors(request.get("descriptors"));
      verdict = decider.decide(domain, descriptors, hits);
      metrics.recorder().record(domain, descriptors, verdict);
    } catch (BadRequest e) {
      metrics.refused("http", e.kind().name().toLowerCase(Locale.ROOT));
      sendError(exchange, e.kind() == BadRequest.Kind.NOT_FOUND ? 404 : 400, e.getMessage());
      return;
    }
    metrics.decided("http", domain, verdict, System.nanoTime() - start);
    ObjectNode answer = json.createObjectNode();
    answer.put("overall", verdict.overall().name());
    ArrayNode statuses = answer.putArray("statuses");
    for (Status status : verdict.statuses()) {
      ObjectNode out = statuses.addObject();
      out.put("code", status.code().name());
      out.put("outcome", status.outcome().name());
      out.put("rule", status.rule());
      if (status.limit() != null) {
        ObjectNode limit = out.putObject("limit");
        limit.put("name", status.limit().name());
        limit.put("requests", status.limit().requestsPerUnit());
        limit.put("window", status.limit().window().toString());
        limit.put("unit", status.limit().unit().name());
      }
      out.put("remaining", status.remaining());
      if (status.untilReset() != null) {
        out.put("durationUntilResetMillis", ceilMillis(status.untilReset()));
      }
    }
    send(
        exchange,
        verdict.overall() == Decisions.Code.OK ? 200 : 429,
        "application/json",
        json.writeValueAsString(answer));
  }

  private void envoyJson(HttpExchange exchange) throws IOException {
    long start = System.nanoTime();
    byte[] body = readBody(exchange);
    if (body == null) {
      metrics.refused("http", "too_large");
      sendError(exchange, 413, "the body must be at most " + MAX_BODY_BYTES + " bytes");
      return;
    }
    RateLimitRequest.Builder request = RateLimitRequest.newBuilder();
    try {
      JsonFormat.parser().merge(new String(body, StandardCharsets.UTF_8), request);
    } catch (InvalidProtocolBufferException | RuntimeException e) {
      metrics.refused("http", "malformed_json");
      sendError(exchange, 400, "not a RateLimitRequest in JSON: " + e.getMessage());
      return;
    }
    Verdict verdict;
    try {
      List<Descriptor> descriptors =
          EnvoyRateLimitService.descriptors(request.getDescriptorsList());
      verdict =
          decider.decide(
              request.getDomain(), descriptors, Integer.toUnsignedLong(request.getHitsAddend()));
      metrics.recorder().record(request.getDomain(), descriptors, verdict);
    } catch (BadRequest e) {
      metrics.refused("http", e.kind().name().toLowerCase(Locale.ROOT));
      sendError(exchange, e.kind() == BadRequest.Kind.NOT_FOUND ? 404 : 400, e.getMessage());
      return;
    }
    metrics.decided("http", request.getDomain(), verdict, System.nanoTime() - start);
    send(
        exchange,
        verdict.overall() == Decisions.Code.OK ? 200 : 429,
        "application/json",
        JsonFormat.printer().print(EnvoyRateLimitService.toResponse(verdict)));
  }

  private static long ceilMillis(java.time.Duration d) {
    long millis = d.toMillis();
    return d.minusMillis(millis).isZero() ? millis : millis + 1;
  }

  private List<Descriptor> descriptors(JsonNode node) {
    if (node == null || node.isNull()) {
      throw invalid("descriptors must not be empty");
    }
    if (!node.isArray()) {
      throw invalid("descriptors must be an array");
    }
    if (node.size() > Decider.MAX_DESCRIPTORS) {
      throw invalid("at most " + Decider.MAX_DESCRIPTORS + " descriptors, had " + node.size());
    }
    List<Descriptor> descriptors = new ArrayList<>(node.size());
    for (int i = 0; i < node.size(); i++) {
      JsonNode descriptor = node.get(i);
      String where = "descriptors[" + i + "]";
      if (!descriptor.isObject()) {
        throw invalid(where + " must be an object with entries");
      }
      JsonNode entries = descriptor.get("entries");
      if (entries == null || !entries.isArray()) {
        throw invalid(where + ".entries must be an array of {key, value}");
      }
      List<Entry> converted = new ArrayList<>(entries.size());
      for (int j = 0; j < entries.size(); j++) {
        JsonNode entry = entries.get(j);
        String at = where + ".entries[" + j + "]";
        if (!entry.isObject()) {
          throw invalid(at + " must be an object {key, value}");
        }
        String key = text(entry, "key", at + ".key", true);
        String value = text(entry, "value", at + ".value", false);
        converted.add(new Entry(key, value == null ? "" : value));
      }
      JsonNode hits = descriptor.get("hits");
      Long descriptorHits = hits == null || hits.isNull() ? null : hits(hits, where + ".hits");
      descriptors.add(new Descriptor(converted, descriptorHits, null));
    }
    return descriptors;
  }

  private static String text(JsonNode parent, String field, String where, boolean required) {
    JsonNode node = parent.get(field);
    if (node == null || node.isNull()) {
      if (required) {
        throw invalid(where + " is missing");
      }
      return null;
    }
    if (!node.isTextual()) {
      throw invalid(where + " must be a string");
    }
    return node.textValue();
  }

  private static long hits(JsonNode node, String where) {
    if (node == null || node.isNull()) {
      return 0;
    }
    if (!node.isIntegralNumber()
        || !node.canConvertToLong()
        || node.longValue() < 0
        || node.longValue() > Decider.MAX_UINT32) {
      throw invalid(
          where + " must be a whole number from 0 to " + Decider.MAX_UINT32 + ", was " + node);
    }
    return node.longValue();
  }

  private static BadRequest invalid(String message) {
    return new BadRequest(BadRequest.Kind.INVALID_ARGUMENT, message);
  }

  private void metrics(HttpExchange exchange) throws IOException {
    send(exchange, 200, "text/plain; version=0.0.4; charset=utf-8", metrics.scrape());
  }

  private void stats(HttpExchange exchange) throws IOException {
    RateLimitConfig config = decider.config();
    ObjectNode answer = json.createObjectNode();
    ArrayNode domains = answer.putArray("domains");
    config.domains().forEach(domains::add);
    answer.put("rules", config.rules().size());
    answer.put("config", watcher.path().toString());
    answer.put("lastReloadError", watcher.lastError());
    send(exchange, 200, "application/json", json.writeValueAsString(answer));
  }

  private static byte[] readBody(HttpExchange exchange) throws IOException {
    try (InputStream in = exchange.getRequestBody()) {
      byte[] body = in.readNBytes(MAX_BODY_BYTES + 1);
      return body.length > MAX_BODY_BYTES ? null : body;
    }
  }

  private void sendError(HttpExchange exchange, int code, String message) throws IOException {
    ObjectNode error = json.createObjectNode();
    error.put("error", message);
    send(exchange, code, "application/json", json.writeValueAsString(error));
  }

  private static void send(HttpExchange exchange, int code, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
