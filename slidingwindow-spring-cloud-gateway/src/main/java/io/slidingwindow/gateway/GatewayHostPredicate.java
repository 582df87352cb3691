package io.slidingwindow.gateway;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.cloud.gateway.handler.predicate.GatewayPredicate;
import org.springframework.cloud.gateway.handler.predicate.HostRoutePredicateFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.web.server.ServerWebExchange;

/**
 * The gateway's {@code Host} predicate as every route source builds it (properties, the Java DSL's
 * {@code .host(...)}, discovery, the actuator), in the spelling {@link GatewayHostName} gives the
 * header: its patterns are matched in lower case, and a pattern that names no port matches the host
 * whatever port the header carries.
 *
 * <p>{@link GatewayHostName} lower-cases the {@code Host} header before routing, so a pattern with
 * a capital letter ({@code .host("API.example.com")} in the Java DSL) would match no request and
 * its route would go dead; the patterns' letters outside template variables are lower-cased here.
 * With the gateway's default {@code include-port: true} the predicate matches the header's port as
 * sent, so {@code Host: api.example.com:443}, {@code :1} or {@code :} (an empty port) missed {@code
 * Host=api.example.com} and could take another route to the same backend past the limit. Each
 * pattern is judged on its own: one that names no port matches the header without its port, one
 * that names a port ({@code api.example.com:8443}) keeps matching the header as sent, so {@code
 * Host=api.example.com,admin.example.com:8443} takes {@code api.example.com:443} too. The header
 * itself is left as sent, so {@code X-Forwarded-Host} keeps its port.
 */
final class GatewayHostPredicate extends HostRoutePredicateFactory {

  /** A template variable of a pattern, {@code {subDomain}}: its name may have capitals. */
  private static final Pattern VARIABLE = Pattern.compile("\\{[^}]*}");

  private final HostRoutePredicateFactory gateway;

  private GatewayHostPredicate(HostRoutePredicateFactory gateway) {
    this.gateway = gateway;
  }

  /** Puts this predicate in place of the gateway's {@link HostRoutePredicateFactory} bean. */
  static BeanPostProcessor replacing() {
    return new BeanPostProcessor() {
      @Override
      public Object postProcessAfterInitialization(Object bean, String beanName) {
        return bean instanceof HostRoutePredicateFactory host
                && !(bean instanceof GatewayHostPredicate)
            ? new GatewayHostPredicate(host)
            : bean;
      }
    };
  }

  /** {@code Host}, the name routes use, as the gateway's factory has it. */
  @Override
  public String name() {
    return gateway.name();
  }

  /**
   * Patterns that name a port are matched against the header as sent, the others against the header
   * without its port (those with a port first, when a host could match both).
   */
  @Override
  public Predicate<ServerWebExchange> apply(Config config) {
    List<String> all = new ArrayList<>();
    List<String> ported = new ArrayList<>();
    List<String> portless = new ArrayList<>();
    for (String pattern : config.getPatterns()) {
      all.add(lowered(pattern));
      (namesPort(pattern) ? ported : portless).add(lowered(pattern));
    }
    Config lowered = patterns(all);
    Predicate<ServerWebExchange> matches = gateway.apply(lowered);
    if (portless.isEmpty()) {
      return matches;
    }
    Predicate<ServerWebExchange> withPort =
        ported.isEmpty() ? exchange -> false : gateway.apply(patterns(ported));
    Predicate<ServerWebExchange> anyPort = gateway.apply(patterns(portless));
    return new GatewayPredicate() {
      @Override
      public boolean test(ServerWebExchange exchange) {
        if (withPort.test(exchange)) {
          return true;
        }
        String host = exchange.getRequest().getHeaders().getFirst(HttpHeaders.HOST);
        String name = host == null ? null : withoutPort(host);
        if (name == null || name.equals(host)) {
          return anyPort.test(exchange);
        }
        // The mutated exchange shares the attributes, where the predicate puts template variables.
        return anyPort.test(
            exchange
                .mutate()
                .request(r -> r.headers(headers -> headers.set(HttpHeaders.HOST, name)))
                .build());
      }

      @Override
      public Object getConfig() {
        return lowered;
      }

      @Override
      public String toString() {
        return matches.toString();
      }
    };
  }

  /** The gateway's configuration of a {@code Host} predicate with {@code patterns}. */
  private static Config patterns(List<String> patterns) {
    Config config = new Config();
    config.setPatterns(patterns);
    return config;
  }

  /** {@code pattern} with {@code A} to {@code Z} in lower case outside template variables. */
  static String lowered(String pattern) {
    StringBuilder out = new StringBuilder(pattern.length());
    var variables = VARIABLE.matcher(pattern);
    int from = 0;
    while (variables.find()) {
      out.append(GatewayHostName.lowerAscii(pattern.substring(from, variables.start())));
      out.append(variables.group());
      from = variables.end();
    }
    return out.append(GatewayHostName.lowerAscii(pattern.substring(from))).toString();
  }

  /**
   * Whether {@code pattern} names a port: it has a colon outside template variables and, for an
   * IPv6 literal in brackets, after the closing bracket.
   */
  static boolean namesPort(String pattern) {
    String plain = VARIABLE.matcher(pattern).replaceAll("");
    return plain.indexOf(':', hostEnd(plain)) >= 0;
  }

  /**
   * {@code host} (a {@code Host} header's value) without its port, empty or not: from the first
   * colon, or for an IPv6 address in brackets, which keeps its own colons, from the first colon
   * after the closing bracket ({@code api.test:443:1} is {@code api.test}).
   */
  static String withoutPort(String host) {
    int colon = host.indexOf(':', hostEnd(host));
    return colon < 0 ? host : host.substring(0, colon);
  }

  /** Where a port may start in {@code host}: after the {@code ]} of a bracketed literal, else 0. */
  private static int hostEnd(String host) {
    int close = host.startsWith("[") ? host.indexOf(']') : -1;
    return close < 0 ? 0 : close + 1;
  }
}
