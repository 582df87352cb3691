package io.slidingwindow.spring;

import io.slidingwindow.http.RequestKey;
import io.slidingwindow.servlet.ClientIpResolver;
import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import java.util.Map;
import java.util.Set;
import org.springframework.web.servlet.HandlerMapping;

/**
 * What a key expression ({@link RateLimit#key()}, or a rule's {@code key} in {@code
 * application.yml}) reads: the root object of its evaluation.
 *
 * <p>The key sources return typed {@link RequestKey}s, whose text names the source, so that values
 * from different sources never meet: {@code clientIp} (the client address, IPv6 by prefix), {@code
 * principal} (the authenticated user, or null), {@code header(name)} (the header's value, or null
 * when absent or blank), {@code global} (one key for all), and {@code key(part, ...)} (a tuple,
 * such as {@code key(pathVariables['id'], clientIp)}). An expression whose result is not a {@code
 * RequestKey} (plain text, a number, a concatenation) is keyed as {@link RequestKey#custom(String)}
 * of its text: it cannot spell an address, header or principal key. Raw values for computing are
 * {@code headerValue(name)}, {@code principalName}, {@code pathVariables} (a map; empty for filter
 * rules, which run before the handler is known), {@code method}, {@code path} and {@code request}.
 * Variables: {@code #clientIp}, {@code #principal}, {@code #pathVariables}, {@code #request}.
 *
 * <p>One instance per request; not shared between threads.
 */
public final class RateLimitKeyContext {

  /** The root properties an expression may read. */
  static final Set<String> PROPERTIES =
      Set.of(
          "clientIp",
          "principal",
          "principalName",
          "global",
          "pathVariables",
          "method",
          "path",
          "request");

  /** The root methods an expression may call. */
  static final Set<String> METHODS = Set.of("header", "headerValue", "key");

  /** The variables an expression may read. */
  static final Set<String> VARIABLES =
      Set.of("clientIp", "principal", "pathVariables", "request", "root", "this");

  private final HttpServletRequest request;
  private final ClientIpResolver clientIpResolver;

  RateLimitKeyContext(HttpServletRequest request, ClientIpResolver clientIpResolver) {
    this.request = request;
    this.clientIpResolver = clientIpResolver;
  }

  /** The request. */
  public HttpServletRequest getRequest() {
    return request;
  }

  /**
   * The key of the client address, trusted proxies and the IPv6 prefix length taken into account.
   */
  public RequestKey getClientIp() {
    return clientIpResolver.key(request);
  }

  /** The key of the authenticated principal, or null for an anonymous request. */
  public RequestKey getPrincipal() {
    String name = getPrincipalName();
    return name == null ? null : RequestKey.principal(name);
  }

  /** The authenticated principal's name, or null. */
  public String getPrincipalName() {
    Principal principal = request.getUserPrincipal();
    return principal == null ? null : principal.getName();
  }

  /** The one key shared by every request. */
  public RequestKey getGlobal() {
    return RequestKey.global();
  }

  /**
   * The URI template variables of the matched handler, such as {@code id} of {@code /orders/{id}}.
   */
  public Map<String, String> getPathVariables() {
    Object vars = request.getAttribute(HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE);
    if (vars instanceof Map<?, ?> map) {
      @SuppressWarnings("unchecked")
      Map<String, String> typed = (Map<String, String>) map;
      return typed;
    }
    return Map.of();
  }

  /** The HTTP method. */
  public String getMethod() {
    return request.getMethod();
  }

  /** The request URI without the query. */
  public String getPath() {
    return request.getRequestURI();
  }

  /**
   * The key of the first value of header {@code name} (trimmed), or null if the header is absent or
   * blank; its text names the header, so it never equals an address or another header's key.
   */
  public RequestKey header(String name) {
    String value = request.getHeader(name);
    return value == null || value.isBlank() ? null : RequestKey.header(name, value.trim());
  }

  /** The first value of header {@code name} as sent, or null; as a key it is plain text. */
  public String headerValue(String name) {
    return request.getHeader(name);
  }

  /** The tuple of {@code parts} ({@link RequestKey#of(Object...)}), or null if a part is null. */
  public RequestKey key(Object... parts) {
    for (Object part : parts) {
      if (part == null) {
        return null;
      }
    }
    return RequestKey.of(parts);
  }
}
