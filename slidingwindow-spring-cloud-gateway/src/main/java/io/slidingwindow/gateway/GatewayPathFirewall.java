package io.slidingwindow.gateway;

import io.slidingwindow.http.PathFirewall;
import io.slidingwindow.http.RateLimitListener;
import io.slidingwindow.http.RefusalReplies;
import io.slidingwindow.webflux.internal.ReactiveFilters;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * The {@link PathFirewall} in front of the gateway's routing: a request whose raw path readers may
 * take differently (doubled slashes, dot segments, path parameters, encoded separators, bad
 * encodings) is answered 400 before any route is picked, so it is never forwarded.
 *
 * <p>A route's limit counts the requests its predicates match, and the gateway matches them on the
 * path as sent: {@code /api//login} and {@code /api/x/../login} do not match {@code
 * Path=/api/login}, so they take another route to the same backend, such as {@code Path=/api/**}.
 * The gateway forwards the first as {@code /api/login}, and a backend that resolves dot segments
 * (every servlet container) serves the second as the login as well: the login's limit never counted
 * them. With the firewall, only spellings that every reader takes alike are routed.
 *
 * <p>An encoded semicolon ({@code %3B}) is refused whatever the firewall allows: its {@code
 * SEMICOLON} allowance is for path parameters ({@code ;jsessionid=}, matrix variables), which the
 * gateway's {@code Path} predicate drops as a backend does. The predicate reads {@code %3B} as
 * data, so {@code /api/login%3Bx=1} misses {@code Path=/api/login} and takes a sibling route such
 * as {@code Path=/api/**}, while a backend that decodes before it drops path parameters serves it
 * as {@code /api/login}: the login route's limit never counted it, and no rule can follow a route's
 * predicate. Only a firewall turned off lets it through.
 *
 * <p>Runs first among the web filters. Its firewall is the application's {@link PathFirewall} bean
 * ({@code slidingwindow.http.path-firewall.*}; strict unless told otherwise). Refusals are logged
 * at DEBUG and told to the listener, never quoting the path in the answer.
 */
final class GatewayPathFirewall implements WebFilter, Ordered {

  private static final Logger LOG = LoggerFactory.getLogger(GatewayPathFirewall.class);

  private final PathFirewall firewall;
  private final RateLimitListener listener;

  GatewayPathFirewall(PathFirewall firewall, RateLimitListener listener) {
    this.firewall = firewall;
    this.listener = listener;
  }

  @Override
  public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
    if (!firewall.enabled()) {
      return chain.filter(exchange);
    }
    ServerHttpRequest request = exchange.getRequest();
    String rawPath = request.getURI().getRawPath();
    Optional<String> refusal = firewall.check(rawPath);
    if (refusal.isEmpty() && hasEncodedSemicolon(rawPath)) {
      refusal = Optional.of("an encoded path parameter (%3B), refused by the gateway");
    }
    if (refusal.isEmpty()) {
      return chain.filter(exchange);
    }
    LOG.debug("request path refused before routing: {}", refusal.get());
    listener.onRejectedPath(request.getMethod().name(), rawPath, refusal.get());
    return ReactiveFilters.write(exchange, RefusalReplies.badRequestPath());
  }

  /** Whether {@code rawPath} holds {@code %3B} or {@code %3b}. */
  static boolean hasEncodedSemicolon(String rawPath) {
    for (int i = rawPath.indexOf('%'); i >= 0; i = rawPath.indexOf('%', i + 1)) {
      if (i + 2 < rawPath.length()
          && rawPath.charAt(i + 1) == '3'
          && (rawPath.charAt(i + 2) == 'B' || rawPath.charAt(i + 2) == 'b')) {
        return true;
      }
    }
    return false;
  }

  /** First: before Spring Security's chain and before routing. */
  @Override
  public int getOrder() {
    return Ordered.HIGHEST_PRECEDENCE;
  }
}
