package io.slidingwindow.spring.method;

import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RequestKey;
import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.spring.internal.KeyLanguage;
import io.slidingwindow.spring.internal.RateLimitAnnotations;
import java.lang.reflect.Method;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodIntrospector;

/**
 * The limited methods of one post-processor: each created from its annotation and checked once, for
 * the first bean that has it, and shared by every bean that has it; and the register of their rule
 * names, unique among them except that the methods of one annotation with a name of its own (a
 * fragment's method, counted at the repository and at its implementation) share that rule and its
 * limiter. Thread-safe.
 */
final class MethodRules {

  private final RateLimitAnnotations annotations = new RateLimitAnnotations();
  private final Map<Method, LimitedMethod> methods = new ConcurrentHashMap<>();

  /** The first method kept of each rule with a name of the annotation's own, which others share. */
  private final Map<String, LimitedMethod> named = new ConcurrentHashMap<>();

  /** The limited method {@code method}, or null if none was created. */
  LimitedMethod get(Method method) {
    return methods.get(method);
  }

  /** Every limited method created so far. */
  Collection<LimitedMethod> all() {
    return methods.values();
  }

  /**
   * The {@link RateLimit} methods of {@code type}, each as {@link
   * RateLimitMethodPostProcessor#specific} gives it.
   */
  static Map<Method, RateLimit> annotated(Class<?> type) {
    Map<Method, RateLimit> found = new LinkedHashMap<>();
    MethodIntrospector.selectMethods(
            type,
            (MethodIntrospector.MetadataLookup<RateLimit>)
                method -> LimitedMethods.annotation(method, type))
        .forEach(
            (method, annotation) ->
                found.put(RateLimitMethodPostProcessor.specific(method, type), annotation));
    return found;
  }

  /**
   * The limited method {@code method} of a bean of class {@code type}, which carries {@code
   * annotation}: created for the first bean that has it, and shared by the others (a method several
   * beans inherit is one rule), checked for each bean's class (its fallback).
   *
   * @param where the bean, for messages
   * @throws IllegalArgumentException naming {@code where}, the method and the attribute if the
   *     annotation is invalid, or both annotations if the method carries the annotation of another
   *     interface's method in another bean's class
   */
  LimitedMethod ofBean(String where, Class<?> type, Method method, RateLimit annotation) {
    LimitedMethod limited =
        methods.computeIfAbsent(method, m -> kept(create(where, type, type, m, annotation)));
    limited.checkFor(where + ": " + RateLimitAnnotations.describe(method), type);
    Method declaration = LimitedMethods.declaration(method, type);
    if (!limited.declaration().equals(declaration)) {
      throw new IllegalArgumentException(
          where
              + ": "
              + method.getDeclaringClass().getName()
              + "."
              + method.getName()
              + " implements both "
              + RateLimitAnnotations.describe(declaration)
              + " here and "
              + RateLimitAnnotations.describe(limited.declaration())
              + " in another bean, and one method has one limit; override it in "
              + type.getName());
    }
    return limited;
  }

  /**
   * The limited method {@code method} that calls of an interface-based proxy count under, whose
   * target's class is {@code implementer} (null if none): its fallback is looked for only if that
   * implements the method.
   *
   * @param where the bean, for messages
   * @throws IllegalArgumentException naming {@code where}, the method and the attribute if the
   *     annotation is invalid
   */
  LimitedMethod ofInterface(String where, Class<?> implementer, Method method) {
    return methods.computeIfAbsent(
        method,
        m -> {
          Class<?> type = implementer != null ? implementer : m.getDeclaringClass();
          boolean implemented =
              implementer != null && m.getDeclaringClass().isAssignableFrom(implementer);
          return kept(
              create(
                  where,
                  type,
                  implemented ? implementer : null,
                  m,
                  LimitedMethods.annotation(m, type)));
        });
  }

  /** {@code limited}, the first of its named rule to be kept unless another was. */
  private LimitedMethod kept(LimitedMethod limited) {
    if (limited.named()) {
      named.putIfAbsent(limited.rule().name(), limited);
    }
    return limited;
  }

  /**
   * The limited method {@code method} of {@code type} (the class, or interface, that holds it for a
   * call), checked, not kept; its fallback is looked for in {@code target}, the class of the object
   * calls run on, or stops start-up if that is null (the object does not implement the method).
   *
   * @param bean the bean, for messages
   */
  LimitedMethod create(
      String bean, Class<?> type, Class<?> target, Method method, RateLimit annotation) {
    return create(bean, type, target, method, annotation, true);
  }

  /**
   * As {@link #create(String, Class, Class, Method, RateLimit)}, its fallback and return type left
   * unchecked unless {@code checkFallback}: for a bean that is not made yet, known only by a
   * supertype of its class.
   */
  LimitedMethod create(
      String bean,
      Class<?> type,
      Class<?> target,
      Method method,
      RateLimit annotation,
      boolean checkFallback) {
    String where = bean + ": " + RateLimitAnnotations.describe(method);
    Method declaration = LimitedMethods.declaration(method, type);
    HttpRule rule;
    try {
      rule = annotations.methodRule(method, declaration, annotation, false);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(bean + ": " + e.getMessage(), e);
    }
    LimitedMethod.Kind kind;
    try {
      kind = Returns.kindOf(where, type, method, annotation.countOn().length > 0);
    } catch (IllegalArgumentException e) {
      if (checkFallback) {
        throw e;
      }
      // Known only by a supertype, whose method may declare a wider type (Publisher, Future) than
      // the class that will be made: its creation checks the method that is called.
      kind = LimitedMethod.Kind.PLAIN;
    }
    Function<Object[], RequestKey> key =
        KeyLanguage.methodKey(
            where + ": key",
            annotation.key(),
            method.getParameterCount(),
            new DefaultParameterNameDiscoverer().getParameterNames(method));
    if (checkFallback && target == null && !annotation.fallbackMethod().isEmpty()) {
      Fallbacks.find(where, null, method, annotation.fallbackMethod());
    }
    LimitedMethod limited =
        new LimitedMethod(
            rule,
            key,
            kind,
            method,
            annotation.fallbackMethod(),
            List.of(annotation.countOn()),
            where,
            declaration,
            !annotation.name().isEmpty(),
            annotation.name().isEmpty() ? null : named.get(rule.name()));
    if (checkFallback && target != null) {
      limited.checkFor(where, target);
    }
    return limited;
  }
}
