package io.slidingwindow.spring.method;

import io.slidingwindow.spring.internal.RateLimitAnnotations;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.Collection;
import java.util.HashSet;
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

  /**
   * The interfaces of a proxy that may be either kind, as another post-processor that makes proxies
   * of the other kind may proxy the bean first, and the post-processor then advises that proxy.
   */
  static final Class<?>[] EITHER = new Class<?>[0];

  /** What the message of a method missed by another post-processor's proxy adds. */
  private static final String FOREIGN =
      "; this proxy was made before the @RateLimit post-processor saw the bean, by another"
          + " post-processor (@EnableAsync's, for one, is interface-based unless proxyTargetClass"
          + " = true), whose setting decides";

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
   * Why the proxy of a bean of {@code type} that is not made yet will not intercept {@code method},
   * or null if it will or this cannot tell: an interface-based one exposes {@code interfaces}, a
   * class-based one ({@code interfaces} null) is defined where its class loader says, and one that
   * may be either ({@code interfaces} {@link #EITHER}) is checked only when made.
   */
  static String missedBeforeProxy(Class<?> type, Method method, Class<?>[] interfaces) {
    String reason = missedByAny(method);
    if (reason != null || interfaces == EITHER) {
      return reason;
    }
    return interfaces != null
        ? missedByInterfaces(type, method, interfaces)
        : missedByClass(method);
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
