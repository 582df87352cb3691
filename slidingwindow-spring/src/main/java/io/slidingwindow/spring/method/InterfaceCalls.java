package io.slidingwindow.spring.method;

import io.slidingwindow.spring.internal.RateLimitAnnotations;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.aop.Pointcut;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.core.ResolvableType;

/**
 * The calls of a bean that is an interface-based (JDK) proxy exposing interfaces that its target
 * class does not implement, or that has no target class: a Spring Data repository (its target, the
 * store's base class such as {@code SimpleJpaRepository}, implements {@code CrudRepository} but not
 * the application's repository interface, whose queries, default methods and fragments the proxy
 * serves itself), an HTTP interface client. Such a proxy passes its handler a method of one of its
 * interfaces, and one operation can arrive as several: a {@code CrudRepository} method that the
 * application's interface redeclares with its own types ({@code findById(ID)} and {@code
 * findById(String)}), or one signature that two interfaces declare. Each method of the interfaces
 * is put with the others of its operation (same name, same parameter types once the interface's
 * type arguments are applied), and every call of the operation counts under one annotated method:
 * the target class's method that runs it, if that carries {@code @RateLimit} (as for any bean),
 * else the one method of the interfaces that carries it. Stateless.
 */
final class InterfaceCalls {

  private InterfaceCalls() {}

  /** One operation of the proxy: a name and its parameter types, type arguments applied. */
  private record Operation(String name, List<Class<?>> parameters) {}

  /**
   * The class whose methods run the calls of {@code bean}: its (innermost) target's, or null if it
   * has none but a proxy class.
   */
  static Class<?> implementer(Object bean) {
    Class<?> type = AopProxyUtils.ultimateTargetClass(bean);
    return Proxy.isProxyClass(type) ? null : type;
  }

  /**
   * Whether {@code bean} is an interface-based proxy that exposes an interface {@code implementer}
   * (its {@link #implementer}) does not implement.
   */
  static boolean exposesUnimplemented(Object bean, Class<?> implementer) {
    if (!Proxy.isProxyClass(bean.getClass())) {
      return false;
    }
    for (Class<?> exposed : AopProxyUtils.proxiedUserInterfaces(bean)) {
      if (implementer == null || !exposed.isAssignableFrom(implementer)) {
        return true;
      }
    }
    return false;
  }

  /**
   * For each method of {@code interfaces} whose calls are limited, the annotated method they count
   * under.
   *
   * @param where the bean, for the message
   * @param implementer the class whose methods run the calls, or null
   * @throws IllegalArgumentException naming {@code where} and both methods if two methods of one
   *     operation carry a {@code @RateLimit} each
   */
  static Map<Method, Method> limited(String where, Class<?>[] interfaces, Class<?> implementer) {
    Map<Operation, List<Method>> operations = new LinkedHashMap<>();
    for (Class<?> exposed : interfaces) {
      for (Method method : exposed.getMethods()) {
        List<Method> same =
            operations.computeIfAbsent(
                operation(BridgeMethodResolver.findBridgedMethod(method), exposed),
                o -> new ArrayList<>());
        if (!same.contains(method)) {
          same.add(method);
        }
      }
    }
    Map<Method, Method> limited = new HashMap<>();
    for (List<Method> same : operations.values()) {
      List<Method> declared = new ArrayList<>();
      for (Method method : same) {
        Method bridged = BridgeMethodResolver.findBridgedMethod(method);
        if (!declared.contains(bridged)) {
          declared.add(bridged);
        }
      }
      Method counted = counted(where, declared, implementer);
      if (counted != null) {
        same.forEach(method -> limited.put(method, counted));
      }
    }
    return limited;
  }

  /**
   * The annotated method that the calls of {@code same}, the declarations (bridges resolved) of one
   * operation, count under, or null.
   */
  private static Method counted(String where, List<Method> same, Class<?> implementer) {
    if (implementer != null) {
      for (Method method : same) {
        Method runs = RateLimitMethodPostProcessor.specific(method, implementer);
        if (LimitedMethods.annotation(runs, implementer) != null) {
          return runs;
        }
      }
    }
    Method counted = null;
    for (Method method : same) {
      Class<?> type = implementer != null ? implementer : method.getDeclaringClass();
      if (LimitedMethods.annotation(method, type) == null) {
        continue;
      }
      if (counted == null) {
        counted = method;
      } else if (declaration(counted).equals(declaration(method))) {
        counted = moreSpecific(counted, method);
      } else {
        throw new IllegalArgumentException(
            where
                + ": "
                + RateLimitAnnotations.describe(counted)
                + " and "
                + RateLimitAnnotations.describe(method)
                + " are one method of the bean's interfaces, and each carries its own"
                + " @RateLimit; keep one");
      }
    }
    return counted;
  }

  /**
   * The method that declares the {@code @RateLimit} of {@code method}, a method of an interface.
   */
  private static Method declaration(Method method) {
    return LimitedMethods.declaration(method, method.getDeclaringClass());
  }

  /**
   * Of two methods that carry one annotation, the one declared lower in the hierarchy, or else the
   * first by name, so that the rule's name does not depend on the order of reflection.
   */
  private static Method moreSpecific(Method a, Method b) {
    Class<?> aType = a.getDeclaringClass();
    Class<?> bType = b.getDeclaringClass();
    if (aType != bType && aType.isAssignableFrom(bType)) {
      return b;
    }
    if (aType != bType && bType.isAssignableFrom(aType)) {
      return a;
    }
    return a.toString().compareTo(b.toString()) <= 0 ? a : b;
  }

  /** The pointcut of the methods {@code limited}, whatever the target class. */
  static Pointcut pointcut(Set<Method> limited) {
    return new StaticMethodMatcherPointcut() {
      @Override
      public boolean matches(Method method, Class<?> targetClass) {
        return limited.contains(method);
      }
    };
  }

  /**
   * The object a call of {@code target}, perhaps itself a proxy, runs on in the end: where a
   * fallback of the target's class is called.
   */
  static Object innermost(Object target) {
    Object current = target;
    Object inner = AopProxyUtils.getSingletonTarget(current);
    while (inner != null) {
      current = inner;
      inner = AopProxyUtils.getSingletonTarget(current);
    }
    return current;
  }

  /** Whether {@code proxy} is {@code bean}, or a proxy whose calls run on it in the end. */
  static boolean wraps(Object proxy, Object bean) {
    for (Object current = proxy;
        current != null;
        current = AopProxyUtils.getSingletonTarget(current)) {
      if (current == bean) {
        return true;
      }
    }
    return false;
  }

  private static Operation operation(Method method, Class<?> exposed) {
    List<Class<?>> parameters = new ArrayList<>(method.getParameterCount());
    for (int i = 0; i < method.getParameterCount(); i++) {
      parameters.add(ResolvableType.forMethodParameter(method, i, exposed).toClass());
    }
    return new Operation(method.getName(), parameters);
  }
}
