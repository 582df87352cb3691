package io.slidingwindow.spring;

import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.RequestKey;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.Principal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.server.ServerWebExchange;

/**
 * One request of a reactive application as the rules' keys read it: the exchange, its principal
 * (resolved before the rules run, since the exchange gives it only asynchronously) and the client
 * address rules.
 */
record ReactiveKeySource(ServerWebExchange exchange, Principal principal, ClientAddresses addresses)
    implements RateLimitKeyContext.Source {

  @Override
  public Object request() {
    return exchange.getRequest();
  }

  @Override
  public RequestKey clientIp() {
    return addresses.key(remoteAddress(exchange.getRequest()), forwardedFor(exchange.getRequest()));
  }

  /** The peer's address as text, as a servlet container reports it; empty if unknown. */
  static String remoteAddress(ServerHttpRequest request) {
    InetSocketAddress remote = request.getRemoteAddress();
    if (remote == null) {
      return "";
    }
    InetAddress address = remote.getAddress();
    return address != null ? address.getHostAddress() : remote.getHostString();
  }

  /**
   * Every {@code X-Forwarded-For} value, in order, each as sent (not split at commas). Read through
   * {@code HttpHeaders.forEach}, whose signature Spring Framework 6 and 7 share: {@code
   * HttpHeaders.get} takes an {@code Object} in 6 and a {@code String} in 7, so a call compiled
   * against one fails on the other.
   */
  static List<String> forwardedFor(ServerHttpRequest request) {
    List<String> values = new ArrayList<>(1);
    request
        .getHeaders()
        .forEach(
            (name, lines) -> {
              if (name.equalsIgnoreCase(ClientAddresses.X_FORWARDED_FOR)) {
                values.addAll(lines);
              }
            });
    return values;
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
