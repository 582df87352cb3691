package io.slidingwindow.gateway;

import io.slidingwindow.http.HttpRule;
import io.slidingwindow.webflux.ReactiveRateLimitFilter;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.cloud.gateway.config.GatewayProperties;
import org.springframework.cloud.gateway.handler.predicate.PathRoutePredicateFactory;
import org.springframework.cloud.gateway.handler.predicate.PredicateDefinition;
import org.springframework.cloud.gateway.route.RouteDefinition;
import org.springframework.util.ReflectionUtils;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * Stops start-up when the gateway's {@code Path} predicates match regardless of case while a rule
 * of the starter's WebFlux filter ({@code slidingwindow.http.rules}) matches its paths only in
 * their own case.
 *
 * <p>A {@code Path} predicate parses its patterns with its {@link PathRoutePredicateFactory}'s
 * {@link PathPatternParser}, case-sensitive unless the application gives the factory one that is
 * not ({@code setPathPatternParser}). Then {@code GET /API/LOGIN} takes the route of {@code
 * Path=/api/login} to its backend, while a rule over {@code /api/login} follows the case of the
 * WebFlux handler mappings only and would not count it: the rule could be walked around by changing
 * case. The factory does not tell its parser, so it is read from the factory's field; when that
 * cannot be read (a gateway release without it), a warning says the case could not be checked.
 *
 * <p>Checked once every singleton exists, so a parser given by a bean post-processor or while the
 * configuration is built is seen. Routes' own limits ({@code RequestRateLimiter}) count every
 * request their route takes, whatever its case, and are not concerned.
 */
final class GatewayPathCase implements SmartInitializingSingleton {

  private static final Logger LOG = LoggerFactory.getLogger(GatewayPathCase.class);

  /** The factory's parser field, in Spring Cloud Gateway 4.x and 5.x. */
  private static final String PARSER_FIELD = "pathPatternParser";

  private final Supplier<Map<String, PathRoutePredicateFactory>> factories;
  private final Supplier<Map<String, ReactiveRateLimitFilter>> filters;
  private final Supplier<GatewayProperties> gateway;

  /**
   * Reads the {@code Path} predicate factories, the starter's filters and the gateway's properties
   * (null without them), each when the check runs.
   */
  GatewayPathCase(
      Supplier<Map<String, PathRoutePredicateFactory>> factories,
      Supplier<Map<String, ReactiveRateLimitFilter>> filters,
      Supplier<GatewayProperties> gateway) {
    this.factories = factories;
    this.filters = filters;
    this.gateway = gateway;
  }

  /** The check over the beans of {@code beans}: none to check if it cannot list them. */
  static GatewayPathCase of(BeanFactory beans) {
    if (!(beans instanceof ListableBeanFactory listable)) {
      return new GatewayPathCase(Map::of, Map::of, () -> null);
    }
    return new GatewayPathCase(
        () -> listable.getBeansOfType(PathRoutePredicateFactory.class, false, false),
        () -> listable.getBeansOfType(ReactiveRateLimitFilter.class, false, true),
        () -> listable.getBeanProvider(GatewayProperties.class).getIfAvailable());
  }

  /**
   * @throws IllegalStateException naming the factory, a route, the rule and what to change, if a
   *     factory ignores case while a rule over paths does not
   */
  @Override
  public void afterSingletonsInstantiated() {
    for (Map.Entry<String, PathRoutePredicateFactory> factory : factories.get().entrySet()) {
      Boolean caseSensitive = caseSensitive(factory.getValue());
      if (caseSensitive == null) {
        LOG.warn(
            "slidingwindow: cannot tell whether the gateway's Path predicates ({} bean '{}') match"
                + " regardless of case: if they do, the rules of slidingwindow.http.rules over"
                + " paths count only their own case",
            factory.getValue().getClass().getName(),
            factory.getKey());
      } else if (!caseSensitive) {
        check(factory.getKey());
      }
    }
  }

  private void check(String factoryBean) {
    for (Map.Entry<String, ReactiveRateLimitFilter> filter : filters.get().entrySet()) {
      for (HttpRule rule : filter.getValue().rules()) {
        if (rule.paths().isEmpty() || rule.ignoreCase()) {
          continue;
        }
        String path = rule.paths().get(0).toString();
        throw new IllegalStateException(
            "slidingwindow: the gateway's Path predicates match paths regardless of case"
                + " (PathRoutePredicateFactory bean '"
                + factoryBean
                + "' was given a PathPatternParser that is not case-sensitive, through"
                + " setPathPatternParser), so "
                + path.toUpperCase(Locale.ROOT)
                + " takes the route that "
                + path
                + " takes"
                + routesNamed()
                + ", but rule '"
                + rule.name()
                + "' of ReactiveRateLimitFilter bean '"
                + filter.getKey()
                + "' (slidingwindow.http.rules) matches its paths "
                + rule.paths()
                + " only in their own case and would not count it. Limit those routes with"
                + " RequestRateLimiter and sliding-window-rate-limiter instead (a route's limit"
                + " counts every request the route takes, in any case), or keep the Path"
                + " predicates case-sensitive.");
      }
    }
  }

  /** The routes of the gateway's properties with a Path predicate, for the message. */
  private String routesNamed() {
    GatewayProperties properties = gateway.get();
    List<String> routes = new ArrayList<>();
    if (properties != null) {
      for (RouteDefinition route : properties.getRoutes()) {
        for (PredicateDefinition predicate : route.getPredicates()) {
          if ("Path".equals(predicate.getName())) {
            routes.add(route.getId() + " " + predicate.getArgs().values());
            break;
          }
        }
      }
    }
    return routes.isEmpty() ? "" : " (routes with a Path predicate: " + routes + ")";
  }

  /**
   * Whether {@code factory} parses its patterns case-sensitively; null if its parser cannot be
   * read.
   */
  static Boolean caseSensitive(PathRoutePredicateFactory factory) {
    Field field =
        ReflectionUtils.findField(factory.getClass(), PARSER_FIELD, PathPatternParser.class);
    if (field == null) {
      return null;
    }
    try {
      ReflectionUtils.makeAccessible(field);
      PathPatternParser parser = (PathPatternParser) ReflectionUtils.getField(field, factory);
      return parser == null || parser.isCaseSensitive();
    } catch (RuntimeException e) {
      return null;
    }
  }
}
