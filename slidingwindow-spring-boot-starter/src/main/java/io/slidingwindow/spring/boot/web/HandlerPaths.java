package io.slidingwindow.spring.boot.web;

import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.PathPattern;
import io.slidingwindow.spring.boot.internal.PathRouter;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.util.ClassUtils;
import org.springframework.util.PathMatcher;
import org.springframework.util.ReflectionUtils;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * How the application's handler mappings match request paths, as far as rules over paths must
 * follow them.
 *
 * <p>A handler mapping may match paths regardless of case (a {@code PathPatternParser} set not to
 * be case-sensitive, WebFlux's {@code setUseCaseSensitiveMatch(false)}, or an {@code
 * AntPathMatcher} that ignores case): then {@code GET /V1/ADMIN} reaches the handler of {@code
 * /v1/admin}. So may a router in front of the handlers, a {@link PathRouter} bean (the gateway's
 * {@code Path} predicates given a parser that ignores case: {@code GET /API/LOGIN} then takes the
 * route of {@code Path=/api/login}). The starter builds its rules to match their paths regardless
 * of case too whenever some mapping or router does ({@link #ignoreCase()}, read each time the rules
 * are built: at start-up and on every reload). Spring MVC 6 can also match suffixes ({@code
 * /v1/admin.json} served by {@code /v1/admin}), which no rule over paths can follow.
 *
 * <p>Once every singleton exists, it looks at the mappings and routers again and at the rules each
 * filter in service applies, and stops start-up if a rule over paths cannot see what the handlers
 * serve: a rule that matches only in its own case while a mapping or router ignores case (one the
 * application built itself, or one built before a router's case could be read), or any rule over
 * paths while a mapping matches suffixes. Otherwise, if rules over paths ignore case because the
 * handlers do, it says so in one INFO line.
 */
final class HandlerPaths implements SmartInitializingSingleton {

  private static final Logger LOG = LoggerFactory.getLogger(HandlerPaths.class);

  private static final String MVC_MAPPING =
      "org.springframework.web.servlet.handler.AbstractHandlerMapping";
  private static final String WEBFLUX_MAPPING =
      "org.springframework.web.reactive.handler.AbstractHandlerMapping";

  /**
   * One handler mapping, or a router in front of the handlers.
   *
   * @param kind what it is, for messages ({@code handler mapping}, {@code router})
   * @param bean its bean name
   * @param ignoresCase why it matches paths regardless of case, or null if it does not
   * @param suffixes whether it matches suffixes
   */
  record Mapping(String kind, String bean, String ignoresCase, boolean suffixes) {

    /** A handler mapping. */
    Mapping(String bean, String ignoresCase, boolean suffixes) {
      this("handler mapping", bean, ignoresCase, suffixes);
    }
  }

  /**
   * The rules one enforcer in service applies.
   *
   * @param by what serves them, for messages ({@code RateLimitEnforcer bean 'x'})
   * @param rules its rules
   */
  record Served(String by, List<HttpRule> rules) {}

  private final Supplier<List<Mapping>> mappings;
  private final Supplier<List<Served>> served;

  /**
   * Reads the handler mappings with {@code mappings} and the rules in service with {@code served},
   * each when asked.
   */
  HandlerPaths(Supplier<List<Mapping>> mappings, Supplier<List<Served>> served) {
    this.mappings = mappings;
    this.served = served;
  }

  /** Whether some handler mapping or router matches paths regardless of case. */
  boolean ignoreCase() {
    return mappings.get().stream().anyMatch(mapping -> mapping.ignoresCase() != null);
  }

  @Override
  public void afterSingletonsInstantiated() {
    List<Served> inService = served.get();
    check(mappings.get(), inService).ifPresent(LOG::info);
    sharedNames(inService).ifPresent(LOG::warn);
  }

  /**
   * Rule names that more than one enforcer in service applies (two filters over rules of their own,
   * or the starter's enforcer and a filter of the application's): their limiters, made by one
   * backend, share their keys in Redis (the key prefix and the rule name make a key), so that each
   * one's requests spend the other's permits. That refuses too early, never too late; a warning.
   *
   * @return the warning naming each such rule and what serves it; empty if there is none
   */
  static Optional<String> sharedNames(List<Served> served) {
    Map<String, List<String>> byName = new LinkedHashMap<>();
    for (Served enforcer : served) {
      for (HttpRule rule : enforcer.rules()) {
        List<String> by = byName.computeIfAbsent(rule.name(), name -> new ArrayList<>());
        if (!by.contains(enforcer.by())) {
          by.add(enforcer.by());
        }
      }
    }
    List<String> shared = new ArrayList<>();
    byName.forEach(
        (name, by) -> {
          if (by.size() > 1) {
            shared.add("'" + name + "' (" + String.join(", ", by) + ")");
          }
        });
    return shared.isEmpty()
        ? Optional.empty()
        : Optional.of(
            "slidingwindow: rules of the same name in more than one enforcer: "
                + String.join("; ", shared)
                + ". On one Redis with one key prefix they share their keys, so requests through"
                + " one spend the other's permits (refused early, never late). Name them apart,"
                + " or build one enforcer over the other (a filter over the RateLimitEnforcer"
                + " bean).");
  }

  /**
   * Checks that the rules in service see what the handlers serve.
   *
   * @return the line to log when rules over paths ignore case because a mapping does; empty if
   *     there is nothing to say
   * @throws IllegalStateException naming the mapping, the rule and what to change, if a mapping
   *     matches suffixes while a rule has paths, or ignores case while a rule over paths does not
   */
  static Optional<String> check(List<Mapping> mappings, List<Served> served) {
    List<String> pathRules = new ArrayList<>();
    for (Served enforcer : served) {
      for (HttpRule rule : enforcer.rules()) {
        if (!rule.paths().isEmpty() && !pathRules.contains(rule.name())) {
          pathRules.add(rule.name());
        }
      }
    }
    if (pathRules.isEmpty()) {
      return Optional.empty();
    }
    Optional<Mapping> suffixes = mappings.stream().filter(Mapping::suffixes).findFirst();
    if (suffixes.isPresent()) {
      throw new IllegalStateException(
          "slidingwindow: handler mapping '"
              + suffixes.get().bean()
              + "' uses suffix pattern matching (PathMatchConfigurer#setUseSuffixPatternMatch or"
              + " #setUseRegisteredSuffixPatternMatch), so /v1/admin.json reaches the handler of"
              + " /v1/admin, which no rule over paths can follow: the rules "
              + pathRules
              + " would not count such requests. Turn suffix pattern matching off (it is"
              + " deprecated, and gone from Spring Framework 7), or limit those handlers with"
              + " @RateLimit, which counts the handler that runs whatever the path.");
    }
    List<Mapping> ignoring = mappings.stream().filter(m -> m.ignoresCase() != null).toList();
    if (ignoring.isEmpty()) {
      return Optional.empty();
    }
    Mapping first = ignoring.get(0);
    String mappingText =
        first.kind()
            + " '"
            + first.bean()
            + "' matches paths regardless of case ("
            + first.ignoresCase()
            + ")"
            + (ignoring.size() == 1
                ? ""
                : ", as do " + ignoring.stream().skip(1).map(Mapping::bean).toList());
    for (Served enforcer : served) {
      for (HttpRule rule : enforcer.rules()) {
        if (!rule.paths().isEmpty() && !rule.ignoreCase()) {
          PathPattern path = rule.paths().get(0);
          throw new IllegalStateException(
              "slidingwindow: "
                  + mappingText
                  + ", so "
                  + path.toString().toUpperCase(Locale.ROOT)
                  + (first.kind().equals("router")
                      ? " takes the route of "
                      : " reaches the handler of ")
                  + path
                  + ", but rule '"
                  + rule.name()
                  + "' of the "
                  + enforcer.by()
                  + " matches its paths "
                  + rule.paths()
                  + " only in their own case and would not count it. Build the rule with"
                  + " HttpRule.builder(\""
                  + rule.name()
                  + "\").ignoreCase(true), or let the "
                  + (first.kind().equals("router") ? "router" : "handlers")
                  + " match paths case-sensitively. If"
                  + " the rule is one of slidingwindow.http.rules, the starter built it before"
                  + " the handler mappings could be read: a bean that the rate limit filter needs"
                  + " is itself needed by the web configuration (a WebMvcConfigurer,"
                  + " WebFluxConfigurer or HandlerInterceptor that injects RateLimitEnforcer);"
                  + " inject ObjectProvider<RateLimitEnforcer> there instead.");
        }
      }
    }
    return Optional.of(
        "slidingwindow: "
            + mappingText
            + ", so the rules over paths "
            + pathRules
            + " match regardless of case too.");
  }

  /**
   * The handler mappings of a servlet application (none without Spring MVC) and its {@link
   * PathRouter} beans, read when asked.
   */
  static Supplier<List<Mapping>> servletMappings(ListableBeanFactory beans) {
    return ClassUtils.isPresent(MVC_MAPPING, HandlerPaths.class.getClassLoader())
        ? () -> withRouters(Mvc.mappings(beans), beans)
        : () -> withRouters(new ArrayList<>(), beans);
  }

  /**
   * The handler mappings of a reactive application (none without WebFlux) and its {@link
   * PathRouter} beans, read when asked.
   */
  static Supplier<List<Mapping>> reactiveMappings(ListableBeanFactory beans) {
    return ClassUtils.isPresent(WEBFLUX_MAPPING, HandlerPaths.class.getClassLoader())
        ? () -> withRouters(WebFlux.mappings(beans), beans)
        : () -> withRouters(new ArrayList<>(), beans);
  }

  /** {@code mappings} and, after them, the {@link PathRouter} beans, each asked now. */
  private static List<Mapping> withRouters(List<Mapping> mappings, ListableBeanFactory beans) {
    beans
        .getBeansOfType(PathRouter.class, false, true)
        .forEach(
            (name, router) ->
                mappings.add(new Mapping("router", name, router.ignoresCase(), false)));
    return mappings;
  }

  /** Why a pattern parser ignores case, or null if it does not. */
  private static String caseOf(PathPatternParser parser) {
    return parser.isCaseSensitive() ? null : "its PathPatternParser is not case-sensitive";
  }

  /** Spring MVC's mappings; loaded only when Spring MVC is on the class path. */
  private static final class Mvc {

    static List<Mapping> mappings(ListableBeanFactory beans) {
      List<Mapping> mappings = new ArrayList<>();
      beans
          .getBeansOfType(
              org.springframework.web.servlet.handler.AbstractHandlerMapping.class, false, true)
          .forEach(
              (name, mapping) ->
                  mappings.add(new Mapping(name, ignoresCase(mapping), suffixes(mapping))));
      return mappings;
    }

    /**
     * Why {@code mapping} ignores case, or null: its pattern parser decides, or without one its
     * path matcher, asked (not every matcher tells its setting) whether {@code /A} matches {@code
     * /a}.
     */
    private static String ignoresCase(
        org.springframework.web.servlet.handler.AbstractHandlerMapping mapping) {
      PathPatternParser parser = mapping.getPatternParser();
      if (parser != null) {
        return caseOf(parser);
      }
      PathMatcher matcher = mapping.getPathMatcher();
      return matcher.match("/a", "/A")
          ? "its path matcher, " + matcher.getClass().getSimpleName() + ", ignores case"
          : null;
    }

    /**
     * Whether {@code mapping} matches suffixes: Spring MVC 6's request mappings can, through
     * methods that Spring Framework 7 removed, so they are looked up by name.
     */
    private static boolean suffixes(Object mapping) {
      for (String name : List.of("useSuffixPatternMatch", "useRegisteredSuffixPatternMatch")) {
        Method method = ReflectionUtils.findMethod(mapping.getClass(), name);
        if (method != null
            && method.getReturnType() == boolean.class
            && Boolean.TRUE.equals(ReflectionUtils.invokeMethod(method, mapping))) {
          return true;
        }
      }
      return false;
    }
  }

  /** WebFlux's mappings; loaded only when WebFlux is on the class path. */
  private static final class WebFlux {

    static List<Mapping> mappings(ListableBeanFactory beans) {
      List<Mapping> mappings = new ArrayList<>();
      beans
          .getBeansOfType(
              org.springframework.web.reactive.handler.AbstractHandlerMapping.class, false, true)
          .forEach(
              (name, mapping) ->
                  mappings.add(new Mapping(name, caseOf(mapping.getPathPatternParser()), false)));
      return mappings;
    }
  }
}
