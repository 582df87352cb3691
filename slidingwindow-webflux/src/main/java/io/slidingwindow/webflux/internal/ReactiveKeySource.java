package io.slidingwindow.webflux.internal;

import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.RequestKey;
import io.slidingwindow.spring.RateLimitKeyContext;
import io.slidingwindow.webflux.ReactiveClientKeys;
import java.security.Principal;
import java.util.Map;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.server.ServerWebExchange;

/**
 * One request of a reactive application as the rules' keys read it: the exchange, its principal
 * (resolved before the rules run, since the exchange gives it only asynchronously) and the client
 * address rules. The request type of the {@link io.slidingwindow.http.EnforcementCore} of {@link
 * io.slidingwindow.webflux.ReactiveRateLimitFilter}.
 *
 * @param exchange the exchange
 * @param principal its authenticated principal, null if anonymous
 * @param addresses how its client address is found
 */
public record ReactiveKeySource(
    ServerWebExchange exchange, Principal principal, ClientAddresses addresses)
    implements RateLimitKeyContext.Source {

  /** What a key expression, condition or cost reads of this request. */
  public RateLimitKeyContext context() {
    return new RateLimitKeyContext(this);
  }

  @Override
  public Object request() {
    return exchange.getRequest();
  }

  @Override
  public RequestKey clientIp() {
    return ReactiveClientKeys.of(addresses, exchange.getRequest());
  }

  @Override
  public String principalName() {
    return principal == null ? null : principal.getName();
  }

  @Override
  public Map<String, String> pathVariables() {
    Map<String, String> vars =
        exchange.getAttribute(HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE);
    return vars == null ? Map.of() : vars;
  }

  @Override
  public String method() {
    return exchange.getRequest().getMethod().name();
  }

  @Override
  public String path() {
    return exchange.getRequest().getURI().getRawPath();
  }

  @Override
  public String header(String name) {
    return exchange.getRequest().getHeaders().getFirst(name);
  }
}
