package io.slidingwindow.gateway;

import io.slidingwindow.spring.boot.internal.PathRouter;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
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
import org.springframework.util.ClassUtils;
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
 *
 * <p>A subclass of the factory that overrides {@code apply} or {@code applyAsync} matches paths its
 * own way (lower-casing them, say), which no parser tells: it is taken as matching regardless of
 * case, so that no casing its routes take escapes a rule, at the cost of counting casings that no
 * route takes (which the gateway answers 404); a warning at start-up says so and what to do. Other
 * loose matching of its own (prefixes, other spellings) the rules cannot follow.
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

  /**
   * Which factories were given a parser that ignores case, or match paths their own way; null if
   * none does.
   */
  @Override
  public String ignoresCase() {
    List<String> ignoring = new ArrayList<>();
    List<String> own = new ArrayList<>();
    factories
        .get()
        .forEach(
            (name, factory) -> {
              String method = ownMatching(factory);
              if (method != null) {
                own.add("'" + name + "' (" + method + ")");
              } else if (Boolean.FALSE.equals(caseSensitive(factory))) {
                ignoring.add("'" + name + "'");
              }
            });
    List<String> reasons = new ArrayList<>();
    if (!ignoring.isEmpty()) {
      reasons.add(
          "PathRoutePredicateFactory bean "
              + String.join(", ", ignoring)
              + " was given a PathPatternParser that is not case-sensitive, through"
              + " setPathPatternParser");
    }
    if (!own.isEmpty()) {
      reasons.add(
          "PathRoutePredicateFactory bean "
              + String.join(", ", own)
              + " matches paths its own way, which may ignore case and cannot be read, so it is"
              + " taken as ignoring case");
    }
    return reasons.isEmpty()
        ? null
        : "the gateway's Path predicates: " + String.join("; ", reasons);
  }

  /**
   * Warns about each factory whose parser cannot be read, and each that matches paths its own way.
   */
  @Override
  public void afterSingletonsInstantiated() {
    factories
        .get()
        .forEach(
            (name, factory) -> {
              String method = ownMatching(factory);
              if (method != null) {
                LOG.warn(
                    "slidingwindow: the gateway's Path predicates of {} bean '{}' match paths"
                        + " their own way ({}), which the rules of"
                        + " slidingwindow.http.rules over paths cannot read: so that no casing"
                        + " its routes take escapes them, those rules match their paths"
                        + " regardless of case, and also count casings no route takes (answered"
                        + " 404); other loose matching of its own (prefixes, other spellings)"
                        + " they do not follow. To have the rules follow the predicates exactly,"
                        + " keep the factory's apply and give it a PathPatternParser through"
                        + " setPathPatternParser (setCaseSensitive(false) to ignore case), or"
                        + " limit those routes with RequestRateLimiter, which counts every"
                        + " request its route takes",
                    userClass(factory).getName(),
                    name,
                    method);
              } else if (caseSensitive(factory) == null) {
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
   * The method by which {@code factory} matches paths its own way ({@code apply(Config)} or {@code
   * applyAsync(Config)}, declared by a subclass of {@link PathRoutePredicateFactory}); null if it
   * matches them as the gateway's factory does.
   */
  static String ownMatching(PathRoutePredicateFactory factory) {
    Class<?> type = userClass(factory);
    for (String method : List.of("apply", "applyAsync")) {
      Method declared =
          ReflectionUtils.findMethod(type, method, PathRoutePredicateFactory.Config.class);
      if (declared != null
          && declared.getDeclaringClass() != PathRoutePredicateFactory.class
          && PathRoutePredicateFactory.class.isAssignableFrom(declared.getDeclaringClass())) {
        return declared.getDeclaringClass().getName() + "." + method + "(Config)";
      }
    }
    return null;
  }

  /** The class of {@code factory} as written, not a CGLIB subclass made of it. */
  private static Class<?> userClass(PathRoutePredicateFactory factory) {
    return ClassUtils.getUserClass(factory);
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
