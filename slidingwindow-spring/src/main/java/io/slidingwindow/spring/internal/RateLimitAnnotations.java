package io.slidingwindow.spring.internal;

import io.slidingwindow.Limit;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.StatusRanges;
import io.slidingwindow.spring.RateLimit;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What {@link RateLimit} means on any web stack: the rule of an annotated method, checked with
 * messages that name the method, and the register of rule names, which must be unique among the
 * filter's rules and every annotation. The Spring MVC interceptor and the WebFlux filter pair the
 * rule with a key resolver of their own. Thread-safe.
 */
public final class RateLimitAnnotations {

  /**
   * The status a bean method's call is settled with when it ends in one of its {@link
   * RateLimit#countOn()} exceptions, and so what its rule counts; any other end is settled as
   * {@link #RETURNED}.
   */
  public static final int THREW = 500;

  /** The status a bean method's call that does not count is settled with. */
  public static final int RETURNED = 200;

  private static final StatusRanges THROWN = StatusRanges.parse(Integer.toString(THREW));

  private final Map<String, String> owners = new ConcurrentHashMap<>();

  /**
   * Takes {@code name} for {@code owner}, so that nothing else can use it: each rule name stands
   * for one limiter, one metric series and, on a shared backend, one key space.
   *
   * @throws IllegalArgumentException naming both owners if another owner already uses the name
   */
  public void claim(String name, String owner) {
    String previous = owners.putIfAbsent(name, owner);
    if (previous != null && !previous.equals(owner)) {
      throw new IllegalArgumentException(
          "rule names must be unique, '"
              + name
              + "' is used by "
              + previous
              + " and by "
              + owner
              + "; give one of them another name");
    }
  }

  /** How the register names a rule of {@code slidingwindow.http.rules} as the owner of its name. */
  public static String ruleOwner(String name) {
    return "the filter's rule '" + name + "'";
  }

  /**
   * Checks that {@code ruleName} (a rule of a reloaded configuration) is no annotation's.
   *
   * @throws IllegalArgumentException naming the annotated method if it is
   */
  public void checkRuleName(String ruleName) {
    String owner = owners.get(ruleName);
    if (owner != null && !owner.equals(ruleOwner(ruleName))) {
      throw new IllegalArgumentException(
          "rule names must be unique, '"
              + ruleName
              + "' is used by "
              + owner
              + "; give the rule another name");
    }
  }

  /**
   * The rule of {@code annotation} on {@code method}, its name claimed.
   *
   * @param defaultDryRun dry-run for every annotation, on top of its own flag
   * @throws IllegalArgumentException naming the method if the annotation is invalid or its name is
   *     taken
   */
  public HttpRule rule(Method method, RateLimit annotation, boolean defaultDryRun) {
    if (!annotation.fallbackMethod().isEmpty()) {
      throw new IllegalArgumentException(
          describe(method)
              + ": fallbackMethod is for bean methods, a handler's refusal is answered as the"
              + " filter's, was '"
              + annotation.fallbackMethod()
              + "'");
    }
    if (annotation.countOn().length > 0) {
      throw new IllegalArgumentException(
          describe(method)
              + ": countOn is for bean methods, a handler counts by the status of its answer"
              + " (countStatuses), was "
              + Arrays.toString(annotation.countOn()));
    }
    StatusRanges counted = null;
    if (annotation.countStatuses().length > 0) {
      try {
        counted = StatusRanges.parse(annotation.countStatuses());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            describe(method) + ": countStatuses" + e.getMessage(), e);
      }
    }
    return build(method, describe(method), annotation, defaultDryRun, counted);
  }

  /**
   * The rule of {@code annotation} on a bean method (its fallback allowed), its name claimed. A
   * name of the annotation's own is claimed for {@code declaration}, the method that carries the
   * annotation, so that every method that has that one annotation (a fragment's method, through a
   * repository and its implementation; an interface's, in each class that implements it) shares the
   * rule; a default name, for {@code method}.
   *
   * @param defaultDryRun dry-run for every annotation, on top of its own flag
   * @throws IllegalArgumentException naming the method if the annotation is invalid or its name is
   *     taken
   */
  public HttpRule methodRule(
      Method method, Method declaration, RateLimit annotation, boolean defaultDryRun) {
    if (annotation.countStatuses().length > 0) {
      throw new IllegalArgumentException(
          describe(method)
              + ": countStatuses is for web handlers, a bean method counts by what it throws"
              + " (countOn), was "
              + Arrays.toString(annotation.countStatuses()));
    }
    return build(
        method,
        annotation.name().isEmpty() ? describe(method) : describe(declaration),
        annotation,
        defaultDryRun,
        annotation.countOn().length > 0 ? THROWN : null);
  }

  private HttpRule build(
      Method method,
      String owner,
      RateLimit annotation,
      boolean defaultDryRun,
      StatusRanges counted) {
    String where = describe(method);
    String name =
        annotation.name().isEmpty()
            ? method.getDeclaringClass().getSimpleName() + "." + method.getName()
            : annotation.name();
    HttpRule.Builder rule;
    try {
      rule = HttpRule.builder(name);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + ": name is invalid: " + e.getMessage(), e);
    }
    claim(name, owner);
    if (annotation.limits().length == 0) {
      throw new IllegalArgumentException(
          where + ": limits must hold at least one limit, was empty");
    }
    String[] limits = annotation.limits();
    for (int i = 0; i < limits.length; i++) {
      rule.limit(parseLimit(where, i, limits[i]));
    }
    rule.countRefusedAttempts(annotation.countRefusedAttempts())
        .dryRun(annotation.dryRun() || defaultDryRun)
        .declaredOn(where)
        .countStatuses(counted);
    try {
      return rule.build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
    }
  }

  /** {@code @RateLimit on com.example.Api.order(String)}: the method, overloads told apart. */
  public static String describe(Method method) {
    StringBuilder b =
        new StringBuilder("@RateLimit on ")
            .append(method.getDeclaringClass().getName())
            .append('.')
            .append(method.getName())
            .append('(');
    Class<?>[] types = method.getParameterTypes();
    for (int i = 0; i < types.length; i++) {
      b.append(i == 0 ? "" : ", ").append(types[i].getSimpleName());
    }
    return b.append(')').toString();
  }

  /**
   * Reads one of an annotation's limits with {@link Limit#parse}.
   *
   * @param where the annotated method, for the message
   * @throws IllegalArgumentException naming {@code where}, the limit's index and {@link
   *     Limit#parse}'s reason
   */
  public static Limit parseLimit(String where, int index, String text) {
    try {
      return Limit.parse(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + ": limits[" + index + "]: " + e.getMessage(), e);
    }
  }
}
