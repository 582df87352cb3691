package io.slidingwindow.gateway;

import io.slidingwindow.PlanResolver;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.cloud.gateway.config.GatewayProperties;
import org.springframework.cloud.gateway.filter.FilterDefinition;
import org.springframework.cloud.gateway.handler.predicate.PredicateDefinition;
import org.springframework.cloud.gateway.route.RouteDefinition;

/**
 * Checks the {@value SlidingWindowRateLimiter#CONFIGURATION_PROPERTY_NAME} arguments of the routes
 * and default filters written in the gateway's properties once every bean exists, so that bad
 * limits or plans stop start-up naming the route and the argument; the gateway itself builds a
 * route's filters only when it loads its routes, and logs a failure there without stopping.
 * Arguments written as SpEL expressions are left to that later check. A {@code Host} predicate with
 * a capital letter in a pattern stops start-up too (see {@link #checkHost}). Routes from other
 * sources (the Java DSL, discovery, the actuator) are checked when the gateway defines them; their
 * {@code Host} patterns are matched in lower case (see {@link GatewayHostPredicate}).
 */
final class GatewayRouteCheck implements SmartInitializingSingleton {

  /** Where this limiter's arguments start. */
  private static final String PREFIX = SlidingWindowRateLimiter.CONFIGURATION_PROPERTY_NAME + ".";

  /** A list index written as a name element: {@code .0} followed by a dot or the end. */
  private static final Pattern INDEX = Pattern.compile("\\.(\\d+)(?=\\.|$)");

  /** A template variable of a pattern, {@code {subDomain}}: its name may have capitals. */
  private static final Pattern VARIABLE = Pattern.compile("\\{[^}]*}");

  private final ObjectProvider<GatewayProperties> properties;
  private final Function<String, PlanResolver<?>> resolverBeans;

  GatewayRouteCheck(
      ObjectProvider<GatewayProperties> properties,
      Function<String, PlanResolver<?>> resolverBeans) {
    this.properties = properties;
    this.resolverBeans = resolverBeans;
  }

  /**
   * Checks every route and default filter of the gateway's properties, if there are any.
   *
   * @throws IllegalArgumentException naming the route and the argument at fault
   */
  @Override
  public void afterSingletonsInstantiated() {
    GatewayProperties gateway = properties.getIfAvailable();
    if (gateway == null) {
      return;
    }
    for (FilterDefinition filter : gateway.getDefaultFilters()) {
      check(SlidingWindowRateLimiter.DEFAULT_FILTERS, filter);
    }
    for (RouteDefinition route : gateway.getRoutes()) {
      for (FilterDefinition filter : route.getFilters()) {
        check(route.getId(), filter);
      }
      for (PredicateDefinition predicate : route.getPredicates()) {
        checkHost(route.getId(), predicate);
      }
    }
  }

  /**
   * A {@code Host} predicate's patterns must be in lower case: {@link GatewayHostName} lower-cases
   * the {@code Host} header before routing, so a pattern with a capital letter would match no
   * request. Template variables ({@code {subDomain}.example.com}) may have any name.
   *
   * @throws IllegalArgumentException naming the route and the pattern
   */
  static void checkHost(String routeId, PredicateDefinition predicate) {
    if (!"Host".equals(predicate.getName())) {
      return;
    }
    for (String pattern : predicate.getArgs().values()) {
      if (pattern == null || pattern.contains("#{")) {
        continue; // an expression is read when the gateway builds the route
      }
      String literal = VARIABLE.matcher(pattern).replaceAll("");
      if (!GatewayHostName.lowerAscii(literal).equals(literal)) {
        throw new IllegalArgumentException(
            "route "
                + routeId
                + ": Host pattern '"
                + pattern
                + "' has capital letters, but the Host header is lower-cased before routing (so"
                + " that a host in another case cannot take another route past a limit): write"
                + " the pattern in lower case");
      }
    }
  }

  /**
   * {@code args} with each list index of this limiter's arguments in brackets: {@code
   * plan-keys.free.0} becomes {@code plan-keys.free[0]}, which binds to the first key of plan
   * {@code free} (not to a plan named {@code free.0}); other arguments as they are.
   */
  static <V> Map<String, V> indexed(Map<String, V> args) {
    Map<String, V> indexed = new LinkedHashMap<>();
    args.forEach(
        (name, value) ->
            indexed.put(
                name.startsWith(PREFIX) ? INDEX.matcher(name).replaceAll("[$1]") : name, value));
    return indexed;
  }

  private void check(String routeId, FilterDefinition filter) {
    Map<String, String> args = new LinkedHashMap<>();
    indexed(filter.getArgs())
        .forEach(
            (name, value) -> {
              if (name.startsWith(PREFIX)) {
                args.put(name, value);
              }
            });
    if (args.isEmpty() || args.values().stream().anyMatch(v -> v != null && v.contains("#{"))) {
      return;
    }
    SlidingWindowRateLimiter.Config config = new SlidingWindowRateLimiter.Config();
    try {
      new Binder(List.of(new MapConfigurationPropertySource(args)))
          .bind(SlidingWindowRateLimiter.CONFIGURATION_PROPERTY_NAME, Bindable.ofInstance(config));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "route "
              + routeId
              + ": "
              + SlidingWindowRateLimiter.CONFIGURATION_PROPERTY_NAME
              + ": "
              + e,
          e);
    }
    RouteTerms.of(routeId, config, resolverBeans);
  }
}
