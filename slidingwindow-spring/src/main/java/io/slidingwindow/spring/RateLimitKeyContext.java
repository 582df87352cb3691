package io.slidingwindow.spring;

import io.slidingwindow.http.RequestKey;
import io.slidingwindow.http.RequestPaths;
import java.util.Map;

/**
 * What a key expression ({@link RateLimit#key()}, or a rule's {@code key} in {@code
 * application.yml}) reads: the root object of its evaluation.
 *
 * <p>The key sources return typed {@link RequestKey}s, whose text names the source, so that values
 * from different sources never meet: {@code clientIp} (the client address, IPv6 by prefix), {@code
 * principal} (the authenticated user, or null), {@code header(name)} (the header's value, or null
 * when absent or blank), {@code global} (one key for all), and {@code key(part, ...)} (a tuple,
 * such as {@code key(pathVariables['id'], clientIp)}). An expression whose result is not a {@code
 * RequestKey} is keyed by its content ({@link RequestKey#ofValue(Object)}): plain text, a number or
 * a concatenation as {@link RequestKey#custom(String)} of its text, which cannot spell an address,
 * header or principal key, a list or array by its elements; a value whose class has only {@code
 * Object}'s {@code toString} cannot be a key and counts the request under its client's address. Raw
 * values for computing are {@code headerValue(name)}, {@code principalName}, {@code pathVariables}
 * (a map; empty for filter rules, which run before the handler is known), {@code method}, {@code
 * path} (the path as the dispatcher reads it: path parameters dropped, percent-decoded once,
 * slashes collapsed, dot segments resolved, so {@code /api/%61dmin} reads {@code /api/admin}),
 * {@code rawPath} (the path as received, for logging rather than deciding: a client can spell it
 * many ways) and {@code request} (the server's own request object: an {@code HttpServletRequest} in
 * a servlet application, a {@code ServerHttpRequest} in a reactive one). Everything but {@code
 * request} reads the same on both stacks, so a key written once limits alike on either. Variables:
 * {@code #clientIp}, {@code #principal}, {@code #pathVariables}, {@code #request}.
 *
 * <p>One instance per request; not shared between threads.
 */
public final class RateLimitKeyContext {

  /**
   * What a context reads, from one server API: each web stack's adapter implements it over its own
   * request.
   */
  public interface Source {

    /** The server's request object. */
    Object request();

    /** The key of the client address. */
    RequestKey clientIp();

    /** The authenticated principal's name, or null. */
    String principalName();

    /** The matched handler's URI template variables; empty if none or not known yet. */
    Map<String, String> pathVariables();

    /** The HTTP method. */
    String method();

    /** The request path without the query, as received. */
    String path();

    /** The first value of header {@code name}, or null. */
    String header(String name);
  }

  private final Source source;
  private String path;

  /**
   * The context of one request, read through {@code source}.
   *
   * @throws IllegalArgumentException if {@code source} is null
   */
  public RateLimitKeyContext(Source source) {
    if (source == null) {
      throw new IllegalArgumentException("source must not be null");
    }
    this.source = source;
  }

  /**
   * The request: an {@code HttpServletRequest} in a servlet application, a {@code
   * ServerHttpRequest} in a reactive one.
   */
  public Object getRequest() {
    return source.request();
  }

  /**
   * The key of the client address, trusted proxies and the IPv6 prefix length taken into account.
   */
  public RequestKey getClientIp() {
    return source.clientIp();
  }

  /** The key of the authenticated principal, or null for an anonymous request. */
  public RequestKey getPrincipal() {
    String name = getPrincipalName();
    return name == null ? null : RequestKey.principal(name);
  }

  /** The authenticated principal's name, or null. */
  public String getPrincipalName() {
    return source.principalName();
  }

  /** The one key shared by every request. */
  public RequestKey getGlobal() {
    return RequestKey.global();
  }

  /**
   * The URI template variables of the matched handler, such as {@code id} of {@code /orders/{id}}.
   */
  public Map<String, String> getPathVariables() {
    return source.pathVariables();
  }

  /** The HTTP method. */
  public String getMethod() {
    return source.method();
  }

  /**
   * The request URI without the query, as the dispatcher reads it: path parameters ({@code ;...})
   * dropped, each segment percent-decoded once, backslashes read as slashes, empty segments inside
   * the path dropped and dot segments resolved. Those spellings of one path all read the same, so a
   * condition, cost or key built on them cannot be stepped around that way. Two choices stay the
   * client's: a trailing slash and the letters' case are kept as sent, so where the dispatcher
   * accepts either (trailing-slash or case-insensitive matching, a {@code /**} handler) {@code
   * /orders/7/} and {@code /Orders/7} read differently from {@code /orders/7}. To give one handler
   * one key whatever the spelling, key on {@link #getPathVariables()} or on the handler alone.
   */
  public String getPath() {
    if (path == null) {
      path = RequestPaths.normalizedReading(source.path());
    }
    return path;
  }

  /**
   * The request URI without the query, exactly as received (not decoded). A client chooses its
   * spelling: do not decide on it (see {@link #getPath()}).
   */
  public String getRawPath() {
    return source.path();
  }

  /**
   * The key of the first value of header {@code name} (trimmed), or null if the header is absent or
   * blank; its text names the header, so it never equals an address or another header's key.
   */
  public RequestKey header(String name) {
    String value = source.header(name);
    return value == null || value.isBlank() ? null : RequestKey.header(name, value.trim());
  }

  /** The first value of header {@code name} as sent, or null; as a key it is plain text. */
  public String headerValue(String name) {
    return source.header(name);
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
