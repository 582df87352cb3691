package io.slidingwindow.gateway;

import io.slidingwindow.spring.boot.internal.PathRouter;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.cloud.gateway.handler.predicate.PathRoutePredicateFactory;
import org.springframework.util.ReflectionUtils;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * Tells the starter whether the gateway's {@code Path} predicates match paths regardless of case,
 * so that the rules of {@code slidingwindow.http.rules} over paths follow them.
 *
 * <p>A {@code Path} predicate parses its patterns with its {@link PathRoutePredicateFactory}'s
 * {@link PathPatternParser}, case-sensitive unless the application gives the factory one that is
 * not ({@code setPathPatternParser}). Then {@code GET /API/LOGIN} takes the route of {@code
 * Path=/api/login} to its backend, and a rule over {@code /api/login} must count it: as a {@link
 * PathRouter}, this makes the starter build its rules over paths to ignore case too, each time it
 * builds them (at start-up and on every reload). The factory does not tell its parser, so it is
 * read from the factory's field; when that cannot be read (a gateway release without it), a warning
 * once every singleton exists says the case could not be told, and the rules keep to the handler
 * mappings' case. Routes' own limits ({@code RequestRateLimiter}) count every request their route
 * takes, whatever its case, and are not concerned.
 */
final class GatewayPathCase implements PathRouter, SmartInitializingSingleton {

  private static final Logger LOG = LoggerFactory.getLogger(GatewayPathCase.class);

  /** The factory's parser field, in Spring Cloud Gateway 4.x and 5.x. */
  private static final String PARSER_FIELD = "pathPatternParser";

  private final Supplier<Map<String, PathRoutePredicateFactory>> factories;

  /** Reads the {@code Path} predicate factories, by bean name, each time it is asked. */
  GatewayPathCase(Supplier<Map<String, PathRoutePredicateFactory>> factories) {
    this.factories = factories;
  }

  /** The case of the factories among the beans of {@code beans}: none if it cannot list them. */
  static GatewayPathCase of(BeanFactory beans) {
    if (!(beans instanceof ListableBeanFactory listable)) {
      return new GatewayPathCase(Map::of);
    }
    return new GatewayPathCase(
        () -> listable.getBeansOfType(PathRoutePredicateFactory.class, false, false));
  }

  /** Which factories were given a parser that ignores case; null if none was. */
  @Override
  public String ignoresCase() {
    List<String> ignoring = new ArrayList<>();
    factories
        .get()
        .forEach(
            (name, factory) -> {
              if (Boolean.FALSE.equals(caseSensitive(factory))) {
                ignoring.add("'" + name + "'");
              }
            });
    return ignoring.isEmpty()
        ? null
        : "the gateway's Path predicates: PathRoutePredicateFactory bean "
            + String.join(", ", ignoring)
            + " was given a PathPatternParser that is not case-sensitive, through"
            + " setPathPatternParser";
  }

  /** Warns about each factory whose parser cannot be read. */
  @Override
  public void afterSingletonsInstantiated() {
    factories
        .get()
        .forEach(
            (name, factory) -> {
              if (caseSensitive(factory) == null) {
                LOG.warn(
                    "slidingwindow: cannot tell whether the gateway's Path predicates ({} bean"
                        + " '{}') match regardless of case: if they do, the rules of"
                        + " slidingwindow.http.rules over paths count only their own case",
                    factory.getClass().getName(),
                    name);
              }
            });
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
