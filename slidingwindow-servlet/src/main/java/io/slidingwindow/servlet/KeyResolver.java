package io.slidingwindow.servlet;

import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;

/**
 * Chooses the key a request is limited under: requests with equal keys share one set of windows.
 *
 * <p>A resolver may return {@code null}: the rule then does not apply to that request. The built-in
 * resolvers never do; those keyed on a header or on the principal fall back to the client address
 * when the request has none, so leaving the header out does not escape the limit. Their keys carry a
 * prefix ({@code ip:}, {@code header:}, {@code principal:}) so that a header value can never collide
 * with an address.
 *
 * <p>Implementations must be thread-safe: one resolver serves every request.
 */
@FunctionalInterface
public interface KeyResolver {

  /** The key of {@code request}, or {@code null} to leave the request unlimited by this rule. */
  String resolve(HttpServletRequest request);

  /**
   * Keys on the client address found by {@code clientIp}.
   *
   * @throws IllegalArgumentException if {@code clientIp} is null
   */
  static KeyResolver clientIp(ClientIpResolver clientIp) {
    requireNonNull(clientIp, "clientIp");
    return request -> "ip:" + clientIp.resolve(request);
  }

  /**
   * Keys on the value of header {@code name}, or on the client address when the header is absent or
   * blank.
   *
   * @throws IllegalArgumentException if {@code name} is null or blank, or {@code clientIp} is null
   */
  static KeyResolver header(String name, ClientIpResolver clientIp) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("header name must not be blank, was '" + name + "'");
    }
    requireNonNull(clientIp, "clientIp");
    return request -> {
      String value = request.getHeader(name);
      return value == null || value.isBlank()
          ? "ip:" + clientIp.resolve(request)
          : "header:" + value.trim();
    };
  }

  /**
   * Keys on the authenticated principal's name, or on the client address for anonymous requests.
   *
   * @throws IllegalArgumentException if {@code clientIp} is null
   */
  static KeyResolver principal(ClientIpResolver clientIp) {
    requireNonNull(clientIp, "clientIp");
    return request -> {
      Principal principal = request.getUserPrincipal();
      return principal == null || principal.getName() == null
          ? "ip:" + clientIp.resolve(request)
          : "principal:" + principal.getName();
    };
  }

  /** One key for every request: the rule limits the endpoint as a whole: a per-URL limit shared by all clients. */
  static KeyResolver global() {
    return request -> "global";
  }

  private static void requireNonNull(Object value, String name) {
    if (value == null) {
      throw new IllegalArgumentException(name + " must not be null");
    }
  }
}
