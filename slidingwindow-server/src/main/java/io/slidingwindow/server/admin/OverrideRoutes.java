package io.slidingwindow.server.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.netty.buffer.ByteBufInputStream;
import io.slidingwindow.DurationText;
import io.slidingwindow.Limit;
import io.slidingwindow.Quota;
import io.slidingwindow.redis.RedisUris;
import io.slidingwindow.server.decide.AdminOverrides;
import io.slidingwindow.server.decide.Decider;
import io.slidingwindow.server.decide.Decisions.BadRequest;
import io.slidingwindow.server.decide.DescriptorKey;
import io.slidingwindow.server.http.AllowedHosts;
import io.slidingwindow.server.http.BrowserRequests;
import io.slidingwindow.server.http.Exchange;
import io.slidingwindow.server.http.Json;
import io.slidingwindow.server.http.JsonContentType;
import io.slidingwindow.server.http.Router;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * The admin port's run-time overrides and quota operations on one descriptor ({@link
 * AdminOverrides}), each body a JSON object {@code {"domain": "api", "entries": [{"key": "api_key",
 * "value": "demo-key-2"}]}}, the shape of one descriptor of {@code /v1/decide}:
 *
 * <ul>
 *   <li>{@code PUT /v1/overrides}, with {@code "limits": ["20/10s"]}: sets the descriptor's limits;
 *       200 and the override.
 *   <li>{@code GET /v1/overrides}: every override, with the rule it applies to now.
 *   <li>{@code DELETE /v1/overrides}: removes the descriptor's override; 404 if it has none.
 *   <li>{@code POST /v1/quota}: what is left of the descriptor's limits (nothing is taken).
 *   <li>{@code DELETE /v1/quota}: forgets the descriptor's counts; 200 and the quota afterwards.
 * </ul>
 *
 * <p>A request carrying {@code Origin} or {@code Sec-Fetch-Site} headers is refused 403 ({@link
 * BrowserRequests}), and a body must be declared {@code Content-Type: application/json} ({@link
 * JsonContentType}), else 415, both before it is read, so that a web page cannot make an operator's
 * browser send one; a bad body is answered 400 naming the field at fault; a new override beyond the
 * most kept 409. The port's bearer token guards these paths as every other; without one the port
 * listens on loopback only, and these paths (the listing too, which shows the values) want a {@code
 * Host} of the loopback address or an allowed host name, stricter than the port's rule ({@link
 * AllowedHosts}, any IP address), so that a web page whose name resolves to 127.0.0.1 cannot reach
 * them from the operator's browser. Each call writes one INFO line ({@value #AUDIT_LOGGER}): the
 * operation, the domain, the entries' keys with a digest of each value ({@code sha256:} and the
 * first 16 characters of the Base64url SHA-256 of the value), never the values themselves, which
 * may be API keys, the limits, the rule, the client's address and whether it carried a token.
 */
final class OverrideRoutes {

  /** The logger of the audit lines. */
  static final String AUDIT_LOGGER = "io.slidingwindow.server.admin.audit";

  private static final System.Logger AUDIT = System.getLogger(AUDIT_LOGGER);

  private static final Set<String> DESCRIPTOR_FIELDS = Set.of("domain", "entries");
  private static final Set<String> OVERRIDE_FIELDS = Set.of("domain", "entries", "limits");
  private static final Set<String> ENTRY_FIELDS = Set.of("key", "value", "value_bytes");

  private final Router router;
  private final AdminOverrides overrides;
  private final boolean token;
  private final AllowedHosts hosts;

  private OverrideRoutes(
      Router router, AdminOverrides overrides, boolean token, AllowedHosts hosts) {
    this.router = router;
    this.overrides = overrides;
    this.token = token;
    this.hosts = hosts;
  }

  /**
   * Adds the routes; {@code token}: whether the port asks for one; {@code hosts}: names allowed.
   */
  static void addTo(Router router, AdminOverrides overrides, boolean token, AllowedHosts hosts) {
    OverrideRoutes routes = new OverrideRoutes(router, overrides, token, hosts);
    router
        .add("GET", "/v1/overrides", e -> routes.fromLoopbackName(e, routes::list))
        .add("PUT", "/v1/overrides", e -> routes.guarded(e, routes::set))
        .add("DELETE", "/v1/overrides", e -> routes.guarded(e, routes::remove))
        .add("POST", "/v1/quota", e -> routes.guarded(e, routes::peek))
        .add("DELETE", "/v1/quota", e -> routes.guarded(e, routes::reset));
  }

  private void list(Exchange exchange) {
    List<Object> views = new ArrayList<>();
    for (AdminOverrides.View view : overrides.list()) {
      views.add(view(view));
    }
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("max", overrides.max());
    answer.put("overrides", views);
    exchange.respond(200, "application/json", Json.write(answer));
  }

  private void set(Exchange exchange, JsonNode body) {
    DescriptorKey descriptor = descriptor(body, OVERRIDE_FIELDS);
    List<Limit> limits = limits(body.get("limits"));
    AdminOverrides.View view;
    try {
      view = overrides.set(descriptor, limits);
    } catch (AdminOverrides.Full e) {
      audit(exchange, "set", descriptor, limits, null, "refused: " + e.getMessage());
      exchange.fail(409, e.getMessage());
      return;
    }
    audit(exchange, "set", descriptor, limits, view.rule().path(), "done");
    exchange.respond(200, "application/json", Json.write(view(view)));
  }

  private void remove(Exchange exchange, JsonNode body) {
    DescriptorKey descriptor = descriptor(body, DESCRIPTOR_FIELDS);
    AdminOverrides.View view = overrides.remove(descriptor);
    if (view == null) {
      audit(exchange, "remove", descriptor, null, null, "none");
      exchange.fail(404, "no override for this descriptor in domain '" + descriptor.domain() + "'");
      return;
    }
    audit(exchange, "remove", descriptor, view.limits(), null, "done");
    exchange.respond(200, "application/json", Json.write(view(view)));
  }

  private void peek(Exchange exchange, JsonNode body) {
    DescriptorKey descriptor = descriptor(body, DESCRIPTOR_FIELDS);
    answer(exchange, "peek", descriptor, overrides.peek(descriptor));
  }

  private void reset(Exchange exchange, JsonNode body) {
    DescriptorKey descriptor = descriptor(body, DESCRIPTOR_FIELDS);
    answer(exchange, "reset", descriptor, overrides.reset(descriptor));
  }

  private void answer(
      Exchange exchange,
      String operation,
      DescriptorKey descriptor,
      CompletionStage<AdminOverrides.Usage> usage) {
    usage.whenComplete(
        (done, failure) -> {
          if (failure != null) {
            Throwable cause =
                failure instanceof CompletionException && failure.getCause() != null
                    ? failure.getCause()
                    : failure;
            String reason = RedisUris.mask(String.valueOf(cause.getMessage()));
            audit(exchange, operation, descriptor, null, null, "failed: " + reason);
            exchange.fail(503, "the store did not answer: " + reason);
            return;
          }
          audit(exchange, operation, descriptor, null, done.rule().path(), "done");
          exchange.respond(200, "application/json", Json.write(usage(descriptor, done)));
        });
  }

  /** Runs {@code route} with a token, or for a Host of loopback or an allowed name; else 403. */
  private void fromLoopbackName(Exchange exchange, Router.Route route) {
    String host = exchange.host();
    if (!token && !loopbackHost(host) && !hosts.allowedName(host)) {
      router.refuse(
          exchange,
          Router.HOST_NOT_ALLOWED,
          403,
          "without a token the admin port answers overrides and quotas only for Host 127.0.0.1,"
              + " localhost, [::1] or a name in --admin-allowed-hosts");
      return;
    }
    route.handle(exchange);
  }

  /**
   * Reads the body and runs {@code route}, answering 403 for a request from a browser, 415 for a
   * body not declared JSON and 400 for a body at fault.
   */
  private void guarded(Exchange exchange, Body route) {
    fromLoopbackName(exchange, e -> parsed(e, route));
  }

  private void parsed(Exchange exchange, Body route) {
    if (BrowserRequests.fromBrowser(exchange)) {
      router.refuse(exchange, "browser_origin", 403, BrowserRequests.REFUSED);
      return;
    }
    if (!JsonContentType.accepts(exchange)) {
      router.refuse(exchange, "unsupported_media_type", 415, JsonContentType.WANTED);
      return;
    }
    JsonNode body;
    try {
      Json.checkUtf8(exchange.body());
      try (InputStream in = new ByteBufInputStream(exchange.body().duplicate())) {
        body = Json.mapper().readTree(in);
      }
    } catch (IllegalArgumentException e) {
      exchange.fail(400, e.getMessage());
      return;
    } catch (JsonProcessingException e) {
      exchange.fail(400, "malformed JSON: " + e.getOriginalMessage());
      return;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try {
      route.handle(exchange, body);
    } catch (BadRequest e) {
      exchange.fail(400, e.getMessage());
    }
  }

  /** A route that takes the parsed body. */
  private interface Body {
    void handle(Exchange exchange, JsonNode body);
  }

  /** Whether {@code host}, a Host header, names the loopback address. */
  static boolean loopbackHost(String host) {
    if (host == null) {
      return false;
    }
    String name = host.trim().toLowerCase(Locale.ROOT);
    if (name.startsWith("[")) {
      return name.startsWith("[::1]") && (name.length() == 5 || name.charAt(5) == ':');
    }
    int colon = name.indexOf(':');
    if (colon >= 0) {
      name = name.substring(0, colon);
    }
    return name.equals("localhost") || name.equals("127.0.0.1");
  }

  /**
   * The descriptor of {@code body}.
   *
   * @throws BadRequest naming the first field missing, of a wrong type or out of bounds
   */
  static DescriptorKey descriptor(JsonNode body, Set<String> fields) {
    if (body == null || !body.isObject()) {
      throw BadRequest.invalid("the body must be a JSON object");
    }
    onlyFields(body, fields, "", "the body");
    String domain = text(body, "domain", "domain");
    if (domain.isEmpty() || domain.length() > Decider.MAX_DOMAIN_CHARS) {
      throw BadRequest.invalid("domain must have 1 to " + Decider.MAX_DOMAIN_CHARS + " characters");
    }
    JsonNode entries = body.get("entries");
    if (entries == null || !entries.isArray() || entries.isEmpty()) {
      throw BadRequest.invalid(
          "entries must be a non-empty array of {\"key\": ..., \"value\": ...}");
    }
    if (entries.size() > Decider.MAX_ENTRIES) {
      throw BadRequest.invalid(
          "entries has " + entries.size() + " entries, at most " + Decider.MAX_ENTRIES);
    }
    List<DescriptorKey.Entry> read = new ArrayList<>(entries.size());
    for (int e = 0; e < entries.size(); e++) {
      JsonNode entry = entries.get(e);
      String at = "entries[" + e + "]";
      if (!entry.isObject()) {
        throw BadRequest.invalid(at + " must be an object {key, value}");
      }
      onlyFields(entry, ENTRY_FIELDS, " in " + at, "an entry");
      String key = text(entry, "key", at + ".key");
      String value = ValueBytes.entryValue(entry, at);
      if (key.isEmpty()) {
        throw BadRequest.invalid(at + ".key must not be empty");
      }
      if (key.length() > Decider.MAX_TEXT_CHARS) { // a value is bounded by the body, as in decide
        throw BadRequest.invalid(
            at + " has a key longer than " + Decider.MAX_TEXT_CHARS + " characters");
      }
      read.add(new DescriptorKey.Entry(key, value));
    }
    return new DescriptorKey(domain, read);
  }

  /** Refuses a field of {@code node} other than {@code fields}, as /v1/decide and /json do. */
  private static void onlyFields(JsonNode node, Set<String> fields, String where, String what) {
    node.fieldNames()
        .forEachRemaining(
            name -> {
              if (!fields.contains(name)) {
                throw BadRequest.invalid(
                    "unknown field '"
                        + name
                        + "'"
                        + where
                        + "; "
                        + what
                        + " has "
                        + String.join(", ", sorted(fields)));
              }
            });
  }

  /**
   * The limits of {@code node}, an array of limit texts.
   *
   * @throws BadRequest naming the limit at fault
   */
  static List<Limit> limits(JsonNode node) {
    if (node == null || !node.isArray()) {
      throw BadRequest.invalid("limits must be an array of limits such as [\"20/10s\"]");
    }
    List<Limit> limits = new ArrayList<>(node.size());
    for (int i = 0; i < node.size(); i++) {
      JsonNode text = node.get(i);
      if (!text.isTextual()) {
        throw BadRequest.invalid("limits[" + i + "] must be a string such as \"20/10s\"");
      }
      try {
        limits.add(Limit.parse(text.textValue()));
      } catch (IllegalArgumentException e) {
        throw BadRequest.invalid("limits[" + i + "]: " + e.getMessage());
      }
    }
    return limits;
  }

  static String text(JsonNode parent, String field, String where) {
    JsonNode node = parent.get(field);
    if (node == null || node.isNull()) {
      throw BadRequest.invalid(where + " is missing");
    }
    if (!node.isTextual()) {
      throw BadRequest.invalid(where + " must be a string");
    }
    return Json.checkText(node.textValue(), where);
  }

  private static List<String> sorted(Set<String> names) {
    List<String> list = new ArrayList<>(names);
    list.sort(null);
    return list;
  }

  private static Map<String, Object> view(AdminOverrides.View view) {
    Map<String, Object> answer = descriptorView(view.descriptor());
    answer.put("limits", view.limits().stream().map(Limit::toText).toList());
    answer.put("rule", view.rule() == null ? null : view.rule().path());
    answer.put("active", view.rule() != null);
    return answer;
  }

  private static Map<String, Object> usage(DescriptorKey descriptor, AdminOverrides.Usage usage) {
    List<Map<String, Object>> limits = new ArrayList<>();
    for (Quota.Usage limit : usage.quota().limits()) {
      Map<String, Object> view = new LinkedHashMap<>();
      view.put("permits", limit.limit().permits());
      view.put("window", DurationText.format(limit.limit().window()));
      view.put("used", limit.used());
      view.put("remaining", limit.remaining());
      view.put(
          "resetAfter",
          limit.resetAfter().isZero() ? "0s" : DurationText.format(limit.resetAfter()));
      limits.add(view);
    }
    Map<String, Object> answer = descriptorView(descriptor);
    answer.put("rule", usage.rule().path());
    answer.put("override", usage.quota().plan().isPresent());
    answer.put("limits", limits);
    return answer;
  }

  private static Map<String, Object> descriptorView(DescriptorKey descriptor) {
    List<Object> entries = new ArrayList<>();
    for (DescriptorKey.Entry entry : descriptor.entries()) {
      Map<String, Object> view = new LinkedHashMap<>();
      view.put("key", entry.key());
      ValueBytes.show(view, entry.value());
      entries.add(view);
    }
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("domain", descriptor.domain());
    answer.put("entries", entries);
    return answer;
  }

  private void audit(
      Exchange exchange,
      String operation,
      DescriptorKey descriptor,
      List<Limit> limits,
      String rule,
      String result) {
    StringBuilder line =
        new StringBuilder("admin ")
            .append(operation)
            .append(": domain=")
            .append(descriptor.domain())
            .append(" entries=");
    line.append(digests(descriptor));
    if (limits != null) {
      line.append(" limits=").append(limits.stream().map(Limit::toText).toList());
    }
    if (rule != null) {
      line.append(" rule=").append(rule);
    }
    line.append(" client=")
        .append(exchange.clientAddress())
        .append(token ? " (bearer token)" : " (loopback, no token)")
        .append(": ")
        .append(result);
    AUDIT.log(Level.INFO, line.toString());
  }

  /** The entries with each value replaced by its digest: {@code [api_key=sha256:...]}. */
  static String digests(DescriptorKey descriptor) {
    StringBuilder text = new StringBuilder("[");
    for (DescriptorKey.Entry entry : descriptor.entries()) {
      if (text.length() > 1) {
        text.append(", ");
      }
      text.append(entry.key()).append('=').append(digest(entry.value()));
    }
    return text.append(']').toString();
  }

  /** {@code sha256:} and the first 16 characters of the Base64url SHA-256 of {@code value}. */
  static String digest(String value) {
    try {
      byte[] hash = MessageDigest.getInstance("SHA-256").digest(ValueBytes.digested(value));
      return "sha256:"
          + Base64.getUrlEncoder().withoutPadding().encodeToString(hash).substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
