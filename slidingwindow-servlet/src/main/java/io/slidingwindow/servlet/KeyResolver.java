package io.slidingwindow.servlet;

import io.slidingwindow.http.RequestKey;
import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import java.util.function.Function;

/**
 * Chooses the key a request is limited under: requests with equal keys share one set of windows.
 *
 * <p>Keys carry their source. The enforcer limits by {@link #key(HttpServletRequest)}, a {@link
 * RequestKey} whose text names where it came from (client address, header by name, principal,
 * application), so a value one client controls can never name another client's bucket: {@code
 * X-Api-Key: 127.0.0.1} is not the address 127.0.0.1. The built-in resolvers and those made with
 * {@link #typed(Function)} return typed keys. A resolver that only implements {@link
 * #resolve(HttpServletRequest)} returns plain text, which the enforcer files as {@link
 * RequestKey#custom(String)}: whatever it returns, even {@code "ip:127.0.0.1"}, it cannot reach the
 * built-in namespaces. Keys are also per rule: each rule has its own limiter (and on a shared
 * backend its own key space), so rules never share a bucket.
 *
 * <p>A resolver that returns {@code null} or throws does not exempt a request: the enforcer counts
 * it under its client's address instead (see {@link RateLimitEnforcer.Builder#clientIp}), and says
 * so in the log once per rule. The built-in resolvers never do; those keyed on a header or on the
 * principal fall back to the client address when the request has none, so leaving the header out
 * does not escape the limit.
 *
 * <p>Implementations must be thread-safe: one resolver serves every request.
 */
@FunctionalInterface
public interface KeyResolver {

  /**
   * The key of {@code request} as text, or {@code null} to count it under its client's address.
   * Text from a resolver that does not override {@link #key(HttpServletRequest)} is an
   * application-chosen key ({@link RequestKey#custom(String)}); for the built-in resolvers it is
   * {@link RequestKey#value()}.
   */
  String resolve(HttpServletRequest request);

  /**
   * The key the enforcer limits {@code request} under, or {@code null} to count it under its
   * client's address. By default {@link RequestKey#custom(String)} of {@link
   * #resolve(HttpServletRequest)}.
   */
  default RequestKey key(HttpServletRequest request) {
    String value = resolve(request);
    return value == null ? null : RequestKey.custom(value);
  }

  /**
   * A resolver returning the typed keys of {@code keys} (null counts it under its client's
   * address), for applications that combine sources themselves: a checked API key, else the client
   * address.
   *
   * @throws IllegalArgumentException if {@code keys} is null
   */
  static KeyResolver typed(Function<HttpServletRequest, RequestKey> keys) {
    requireNonNull(keys, "keys");
    return new TypedKeyResolver(keys);
  }

  /**
   * Keys on the client address found by {@code clientIp} (IPv6 by prefix; see {@link
   * ClientIpResolver#key(HttpServletRequest)}).
   *
   * @throws IllegalArgumentException if {@code clientIp} is null
   */
  static KeyResolver clientIp(ClientIpResolver clientIp) {
    requireNonNull(clientIp, "clientIp");
    return typed(clientIp::key);
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
    String header = name.trim();
    return typed(
        request -> {
          String value = request.getHeader(header);
          return value == null || value.isBlank()
              ? clientIp.key(request)
              : RequestKey.header(header, value.trim());
        });
  }

  /**
   * Keys on the authenticated principal's name, or on the client address for anonymous requests.
   *
   * @throws IllegalArgumentException if {@code clientIp} is null
   */
  static KeyResolver principal(ClientIpResolver clientIp) {
    requireNonNull(clientIp, "clientIp");
    return typed(
        request -> {
          Principal principal = request.getUserPrincipal();
          return principal == null || principal.getName() == null
              ? clientIp.key(request)
              : RequestKey.principal(principal.getName());
        });
  }

  /**
   * One key for every request: the rule limits the endpoint as a whole, for all clients together.
   */
  static KeyResolver global() {
    return typed(request -> RequestKey.global());
  }

  private static void requireNonNull(Object value, String name) {
    if (value == null) {
      throw new IllegalArgumentException(name + " must not be null");
    }
  }
}
