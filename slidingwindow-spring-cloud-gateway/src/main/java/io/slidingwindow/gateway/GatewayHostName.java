package io.slidingwindow.gateway;

import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * Writes the {@code Host} header's name in its one spelling before routing, so that a route's limit
 * cannot be walked around by spelling the host otherwise: its ASCII letters in lower case, and
 * without the trailing dot of a fully qualified name.
 *
 * <p>A host name means the same in any case and with or without its final dot, and servers take it
 * so, but the gateway's {@code Host} predicate matches it as sent: with a limited route {@code
 * Host=api.example.com} and a sibling route to the same backend such as {@code
 * Host=**.example.com}, {@code Host: API.example.com} and {@code Host: api.example.com.} take the
 * other route and the backend serves them, never counted by the limited route (a sibling with no
 * {@code Host} predicate is walked around by any host at all). With the header rewritten, every
 * spelling takes the route the plain name takes. Only {@code A} to {@code Z} change case (a
 * non-ASCII letter such as the Kelvin sign, which Java lower-cases to {@code k}, stays as it is),
 * and a port stays as sent ({@link GatewayHostPredicate} matches a route whose patterns name no
 * port without it). A request whose host is already so spelled is passed on as it is, allocating
 * nothing. The header's first value is the one the predicate reads; a request that repeats the
 * header goes on with that value alone, rewritten.
 */
final class GatewayHostName implements WebFilter, Ordered {

  @Override
  public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
    ServerHttpRequest request = exchange.getRequest();
    // The first value, as the Host predicate reads it; Spring 6 and 7 share these signatures.
    String host = request.getHeaders().getFirst(HttpHeaders.HOST);
    String spelled = host == null ? null : spelled(host);
    if (spelled == null || spelled.equals(host)) {
      return chain.filter(exchange);
    }
    ServerHttpRequest rewritten =
        request.mutate().headers(headers -> headers.set(HttpHeaders.HOST, spelled)).build();
    return chain.filter(exchange.mutate().request(rewritten).build());
  }

  /** Right after the path firewall, before Spring Security's chain and before routing. */
  @Override
  public int getOrder() {
    return Ordered.HIGHEST_PRECEDENCE + 1;
  }

  /**
   * {@code host} (a {@code Host} header's value: a name or address, maybe with a port) with {@code
   * A} to {@code Z} as {@code a} to {@code z} and the trailing dots of the name dropped (unless it
   * is nothing but dots); {@code host} itself if that changes nothing.
   */
  static String spelled(String host) {
    int nameEnd = host.length();
    if (!host.startsWith("[")) { // an IPv6 address has no name, and colons of its own
      int colon = host.lastIndexOf(':');
      if (colon >= 0) {
        nameEnd = colon;
      }
    }
    int dotsFrom = nameEnd;
    while (dotsFrom > 0 && host.charAt(dotsFrom - 1) == '.') {
      dotsFrom--;
    }
    if (dotsFrom == 0) {
      dotsFrom = nameEnd;
    }
    String lowered = lowerAscii(host);
    return dotsFrom == nameEnd
        ? lowered
        : lowered.substring(0, dotsFrom) + lowered.substring(nameEnd);
  }

  /** {@code value} with {@code A} to {@code Z} as {@code a} to {@code z}, nothing else changed. */
  static String lowerAscii(String value) {
    char[] chars = null;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c >= 'A' && c <= 'Z') {
        if (chars == null) {
          chars = value.toCharArray();
        }
        chars[i] = (char) (c + ('a' - 'A'));
      }
    }
    return chars == null ? value : new String(chars);
  }
}
