package io.slidingwindow.spring.method;

import io.slidingwindow.spring.internal.RateLimitAnnotations;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.DecoratingProxy;

/**
 * Checks, once a bean's proxy exists, that a call of each of its {@code @RateLimit} methods passes
 * through the proxy, and so is limited. A proxy cannot intercept a static or private method; a
 * class-based (CGLIB) proxy cannot override a final method, nor a package-private one from another
 * class loader; an interface-based (JDK) proxy has only the methods of the bean's interfaces. Such
 * a method would be called unlimited, so it stops start-up. Stateless.
 */
final class ProxyReach {

  /** What the message of a method missed by another post-processor's proxy adds. */
  private static final String FOREIGN =
      "; this proxy was made before the @RateLimit post-processor saw the bean, by another"
          + " post-processor (@EnableAsync's, for one, is interface-based unless proxyTargetClass"
          + " = true), whose setting decides";

  /** What the message of a method that another post-processor's proxy will miss adds. */
  private static final String FOREIGN_FIRST =
      "; another post-processor will proxy the bean before the @RateLimit post-processor sees it"
          + " (@EnableAsync's, for one, is interface-based unless proxyTargetClass = true), and"
          + " its setting decides";

  private ProxyReach() {}

  /**
   * Checks that {@code proxy} intercepts each of {@code methods} of {@code type}.
   *
   * @param where the bean, for the message
   * @throws IllegalArgumentException naming {@code where}, the first method it does not intercept
   *     and why
   */
  static void check(String where, Class<?> type, Object proxy, Collection<Method> methods) {
    check(where, type, proxy, methods, false);
  }

  /**
   * Checks that {@code proxy} intercepts each of {@code methods} of {@code type}; {@code foreign}:
   * whether another post-processor made the proxy, which the message then says.
   *
   * @param where the bean, for the message
   * @throws IllegalArgumentException naming {@code where}, the first method it does not intercept
   *     and why
   */
  static void check(
      String where, Class<?> type, Object proxy, Collection<Method> methods, boolean foreign) {
    for (Method method : methods) {
      String reason = missed(type, proxy, method);
      if (reason != null) {
        throw neverApplied(where, method, foreign ? reason + FOREIGN : reason);
      }
    }
  }

  /**
   * Checks {@code bean}, an interface-based proxy without a target class it tells, whose calls
   * count under {@code counted} (the annotated methods of its interfaces): if it is an opaque
   * Spring proxy (one that is not {@link Advised}, made with {@code opaque = true}), the class it
   * hides may carry a {@code @RateLimit} that no call would find, and that stops start-up.
   *
   * @param where the bean, for the message
   * @throws IllegalArgumentException naming {@code where}, the first such method and why
   */
  static void checkHidden(String where, Object bean, Collection<Method> counted) {
    if (bean instanceof Advised
        || !AopUtils.isJdkDynamicProxy(bean)
        || !(bean instanceof DecoratingProxy decorating)) {
      return;
    }
    Class<?> hidden = decorating.getDecoratedClass();
    if (hidden == null || Proxy.isProxyClass(hidden)) {
      return;
    }
    Set<Method> declarations = new HashSet<>();
    for (Method method : counted) {
      declarations.add(LimitedMethods.declaration(method, method.getDeclaringClass()));
    }
    for (Method method : MethodRules.annotated(hidden).keySet()) {
      if (!declarations.contains(LimitedMethods.declaration(method, hidden))) {
        throw neverApplied(
            where,
            method,
            "the bean is an opaque proxy (made with opaque = true, so not "
                + Advised.class.getName()
                + "), which hides its target class "
                + hidden.getName()
                + " from this post-processor, so a call would not find the annotation; make that"
                + " proxy not opaque, or put the annotation on the method of an interface the"
                + " proxy implements");
      }
    }
  }

  /** The start-up failure of {@code method} of {@code where}, which no proxy intercepts. */
  static IllegalArgumentException neverApplied(String where, Method method, String reason) {
    return new IllegalArgumentException(
        where
            + ": "
            + RateLimitAnnotations.describe(method)
            + " would never be applied: "
            + reason);
  }

  /** Why {@code proxy} does not intercept {@code method}, or null if it does. */
  static String missed(Class<?> type, Object proxy, Method method) {
    String reason = missedByAny(method);
    if (reason != null) {
      return reason;
    }
    if (!AopUtils.isAopProxy(proxy)) {
      return "the bean was not proxied (" + proxy.getClass().getName() + ")";
    }
    Class<?> proxyClass = proxy.getClass();
    if (Proxy.isProxyClass(proxyClass)) {
      return missedByInterfaces(
          type,
          method,
          proxy instanceof Advised advised
              ? advised.getProxiedInterfaces()
              : proxyClass.getInterfaces());
    }
    reason = missedByClass(method);
    if (reason == null
        && !Modifier.isPublic(method.getModifiers())
        && !Modifier.isProtected(method.getModifiers())
        && !samePackage(proxyClass, method.getDeclaringClass())) {
      return "the method is package-private and the proxy class "
          + proxyClass.getName()
          + " is in another class loader, so it cannot override it; make it public or protected";
    }
    return reason;
  }

  /**
   * Why none of {@code kinds}, the proxies a bean of {@code type} that is not made yet may be
   * called through ({@link ProxyForecast}), will intercept {@code method}, or null if one will.
   */
  static String missedBeforeProxy(Class<?> type, Method method, List<ProxyForecast.Kind> kinds) {
    String reason = missedByAny(method);
    if (reason != null) {
      return reason;
    }
    String first = null;
    for (ProxyForecast.Kind kind : kinds) {
      reason =
          kind.interfaces() != null
              ? missedByInterfaces(type, method, kind.interfaces())
              : missedByClass(method);
      if (reason == null) {
        return null;
      }
      if (first == null) {
        first = kind.foreign() && kinds.size() == 1 ? reason + FOREIGN_FIRST : reason;
      }
    }
    return kinds.size() > 1
        ? first + " (nor would the proxy of another post-processor that may proxy the bean first)"
        : first;
  }

  private static String missedByAny(Method method) {
    int modifiers = method.getModifiers();
    if (Modifier.isStatic(modifiers)) {
      return "the method is static, and a proxy intercepts only calls of instance methods;"
          + " make it an instance method";
    }
    if (Modifier.isPrivate(modifiers)) {
      return "the method is private, and a proxy cannot override it; make it public";
    }
    return null;
  }

  private static String missedByInterfaces(Class<?> type, Method method, Class<?>[] interfaces) {
    for (Class<?> implemented : interfaces) {
      for (Method declared : implemented.getMethods()) {
        if (declared.equals(method)
            || RateLimitMethodPostProcessor.specific(declared, type).equals(method)) {
          return null;
        }
      }
    }
    return "the bean's proxy is interface-based (a JDK proxy) and no interface it implements"
        + " declares the method; declare it in one, or use class-based proxies"
        + " (spring.aop.proxy-target-class=true, or setProxyTargetClass(true))";
  }

  private static String missedByClass(Method method) {
    if (Modifier.isFinal(method.getModifiers())) {
      return "the method is final, and the class-based proxy cannot override it; remove final";
    }
    return null;
  }

  /** Whether {@code a} and {@code b} are in one run-time package: one name, one class loader. */
  private static boolean samePackage(Class<?> a, Class<?> b) {
    return a.getClassLoader() == b.getClassLoader()
        && Objects.equals(a.getPackageName(), b.getPackageName());
  }
}
