package io.slidingwindow.spring.boot.dashboard;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import org.springframework.core.Ordered;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * {@link BrowserGuard} on a reactive server: answers 403 a request to the {@code slidingwindow}
 * endpoint's write operations, or to its reads of keys and their state, that a web page of another
 * origin, or at a host name, may have sent. Early among the filters, before the application's
 * security.
 */
final class BrowserGuardWebFilter implements WebFilter, Ordered {

  private final BrowserGuard guard;
  private final boolean transformed;

  /**
   * Guards with {@code guard}; {@code transformed} if a {@code ForwardedHeaderTransformer} ({@code
   * server.forward-headers-strategy=framework}) takes the forwarded headers off each request before
   * the filters and puts the forwarded host in its URI.
   */
  BrowserGuardWebFilter(BrowserGuard guard, boolean transformed) {
    this.guard = guard;
    this.transformed = transformed;
  }

  @Override
  public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
    ServerHttpRequest request = exchange.getRequest();
    if (guard.guards(request.getMethod().name(), request.getPath())) {
      String refusal =
          guard.refusal(
              request.getMethod().name(),
              request.getURI().getScheme(),
              request.getHeaders().getFirst("Origin"),
              request.getHeaders().getFirst("Sec-Fetch-Site"),
              host(request),
              forwardedHosts(request));
      if (refusal != null) {
        byte[] body = guard.refuse(request.getMethod().name(), refusal);
        ServerHttpResponse response = exchange.getResponse();
        response.setStatusCode(HttpStatus.FORBIDDEN);
        response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
        response.getHeaders().setContentLength(body.length);
        return response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(body)));
      }
    }
    return chain.filter(exchange);
  }

  /**
   * The request's {@code Host}, or null without one (HTTP/1.0 allows that, and a browser never
   * sends it), whatever authority the server put in the request's URI in its place (Reactor Netty:
   * {@code localhost}; Tomcat: its own name or the connector's {@code proxyName}). Over HTTP/2,
   * Reactor Netty gives the {@code :authority} as {@code Host}.
   */
  private static String host(ServerHttpRequest request) {
    return request.getHeaders().getFirst("Host");
  }

  /**
   * The host names a proxy says the request was sent to ({@link BrowserGuard#forwardedHosts}), and,
   * behind a {@code ForwardedHeaderTransformer}, the host of the request's URI when it is not its
   * {@code Host}'s. Without the transformer the URI is not asked: Tomcat puts its connector's
   * {@code proxyName} there, which says nothing of where the request went.
   */
  private List<String> forwardedHosts(ServerHttpRequest request) {
    List<String> hosts =
        new ArrayList<>(
            BrowserGuard.forwardedHosts(
                values(request, "X-Forwarded-Host"), values(request, "Forwarded")));
    String host = host(request);
    URI uri = request.getURI();
    if (transformed && host != null && uri.getHost() != null) {
      String authority = uri.getPort() < 0 ? uri.getHost() : uri.getHost() + ":" + uri.getPort();
      if (!authority.equalsIgnoreCase(host.trim())) {
        hosts.add(authority);
      }
    }
    return hosts;
  }

  /**
   * Every value of the header {@code name}, as sent. Read through {@code HttpHeaders.forEach},
   * whose signature Spring Framework 6 and 7 share ({@code getOrEmpty} and {@code get} take an
   * {@code Object} in 6 and a {@code String} in 7, so a call compiled against one fails on the
   * other).
   */
  private static List<String> values(ServerHttpRequest request, String name) {
    List<String> values = new ArrayList<>(1);
    request
        .getHeaders()
        .forEach(
            (header, lines) -> {
              if (header.equalsIgnoreCase(name)) {
                values.addAll(lines);
              }
            });
    return values;
  }

  @Override
  public int getOrder() {
    return Ordered.HIGHEST_PRECEDENCE + 20;
  }
}
