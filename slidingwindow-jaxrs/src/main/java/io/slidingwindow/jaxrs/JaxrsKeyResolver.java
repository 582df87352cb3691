package io.slidingwindow.jaxrs;

import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.RequestKey;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.SecurityContext;
import java.security.Principal;
import java.util.List;

/**
 * Chooses the key a request is limited under: requests with equal keys share one set of windows.
 *
 * <p>Keys are {@link RequestKey}s, which name their source, so that a value one client controls (a
 * header) can never name another source's bucket: {@code X-Api-Key: 127.0.0.1} is not the address
 * 127.0.0.1. A resolver that returns null or throws does not exempt the request: it counts under
 * its client's address (as the filter's or the feature's {@code clientAddresses} finds it), and the
 * listener is told. The built-in resolvers never do; those keyed on a header or on the principal
 * fall back to the client address when the request has none, so leaving the header out does not
 * escape the limit. The client address is the {@link PeerAddress}, or behind proxies that the
 * {@link ClientAddresses} trust the right-most untrusted {@code X-Forwarded-For} hop; IPv6 clients
 * by their /64.
 *
 * <p>Implementations must be thread-safe: one resolver serves every request.
 */
@FunctionalInterface
public interface JaxrsKeyResolver {

  /** The key of {@code request}; null (or a throw) counts it under its client's address. */
  RequestKey key(ContainerRequestContext request);

  /**
   * Keys on the client address.
   *
   * @throws IllegalArgumentException if {@code addresses} is null
   */
  static JaxrsKeyResolver clientAddress(ClientAddresses addresses) {
    requireNonNull(addresses, "addresses");
    return request -> clientKey(addresses, request);
  }

  /**
   * Keys on the value of header {@code name}, or on the client address when the header is absent or
   * blank.
   *
   * <p>Sent more than once, the header is keyed on its first value, the one a resource or filter
   * reads with {@code @HeaderParam(name) String}; a field line holding commas is one value, as it
   * is there. Keying on all the values joined ({@code getHeaderString}) would let a client send the
   * key the application authenticates plus a second value that changes on every request, and have a
   * fresh window each time.
   *
   * @throws IllegalArgumentException if {@code name} is null or blank, or {@code addresses} is null
   */
  static JaxrsKeyResolver header(String name, ClientAddresses addresses) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("header name must not be blank, was '" + name + "'");
    }
    requireNonNull(addresses, "addresses");
    String header = name.trim();
    return request -> {
      String value = request.getHeaders().getFirst(header);
      return value == null || value.isBlank()
          ? clientKey(addresses, request)
          : RequestKey.header(header, value.trim());
    };
  }

  /**
   * Keys on the authenticated principal's name, or on the client address for anonymous requests.
   *
   * @throws IllegalArgumentException if {@code addresses} is null
   */
  static JaxrsKeyResolver principal(ClientAddresses addresses) {
    requireNonNull(addresses, "addresses");
    return request -> {
      SecurityContext security = request.getSecurityContext();
      Principal principal = security == null ? null : security.getUserPrincipal();
      return principal == null || principal.getName() == null
          ? clientKey(addresses, request)
          : RequestKey.principal(principal.getName());
    };
  }

  /** One key for every request: the rule limits its requests as a whole, for all clients. */
  static JaxrsKeyResolver global() {
    return request -> RequestKey.global();
  }

  /** The key of the client of {@code request}, through {@code addresses}. */
  private static RequestKey clientKey(ClientAddresses addresses, ContainerRequestContext request) {
    List<String> forwarded = request.getHeaders().get(ClientAddresses.X_FORWARDED_FOR);
    return addresses.key(PeerAddress.of(request), forwarded == null ? List.of() : forwarded);
  }

  private static void requireNonNull(Object value, String name) {
    if (value == null) {
      throw new IllegalArgumentException(name + " must not be null");
    }
  }
}
