package io.slidingwindow.spring.method;

import io.slidingwindow.spring.RateLimitExceededException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Finds the fallback method of a {@code @RateLimit} bean method, checked when the bean is created:
 * a method of the bean's class (or a supertype) named as the attribute says, whose parameters are
 * the limited method's followed by one that takes a {@link RateLimitExceededException}, and whose
 * return type is assignable to the limited method's. Stateless.
 */
final class Fallbacks {

  private Fallbacks() {}

  /**
   * The fallback named {@code name} for {@code method} in {@code type}, made accessible.
   *
   * @param where the bean and method, for the message
   * @param type the class of the object that calls run on; null if that does not implement {@code
   *     method} (an interface-based proxy that serves it itself, as a Spring Data repository does
   *     its queries), which has no fallback
   * @throws IllegalArgumentException naming {@code where}, the attribute and the signature it needs
   *     if there is none, or more than one that fits equally well, or if {@code type} is null
   */
  static Method find(String where, Class<?> type, Method method, String name) {
    if (type == null) {
      throw new IllegalArgumentException(
          where
              + ": fallbackMethod '"
              + name
              + "' cannot be applied: the bean is an interface-based proxy whose target does not"
              + " implement "
              + method.getDeclaringClass().getName()
              + " (a Spring Data repository, say), so it has no method of the application's to"
              + " answer a refused call; remove fallbackMethod and catch"
              + " RateLimitExceededException where the method is called, or limit a method of a"
              + " bean that calls this one");
    }
    Class<?>[] parameters = method.getParameterTypes();
    List<Method> fits = new ArrayList<>();
    List<Method> named = new ArrayList<>();
    ReflectionUtils.doWithMethods(
        type,
        candidate -> {
          named.add(candidate);
          if (fits(candidate, parameters, method.getReturnType())
              && fits.stream().noneMatch(m -> sameSignature(m, candidate))) {
            fits.add(candidate);
          }
        },
        candidate -> candidate.getName().equals(name) && !candidate.isBridge());
    Method best = null;
    for (Method fit : fits) {
      if (best == null || lastParameter(best).isAssignableFrom(lastParameter(fit))) {
        best = fit;
      }
    }
    for (Method fit : fits) {
      if (fit != best && !lastParameter(fit).isAssignableFrom(lastParameter(best))) {
        throw new IllegalArgumentException(
            where + ": fallbackMethod '" + name + "' is ambiguous: " + best + " and " + fit);
      }
    }
    if (best == null) {
      throw new IllegalArgumentException(
          where
              + ": fallbackMethod '"
              + name
              + "' must be a method of "
              + type.getName()
              + " with parameters ("
              + signature(parameters)
              + (parameters.length == 0 ? "" : ", ")
              + RateLimitExceededException.class.getSimpleName()
              + ") returning "
              + method.getReturnType().getSimpleName()
              + (named.isEmpty() ? "; there is no method of that name" : "; found only " + named));
    }
    ReflectionUtils.makeAccessible(best);
    return best;
  }

  private static boolean fits(Method candidate, Class<?>[] parameters, Class<?> returnType) {
    Class<?>[] types = candidate.getParameterTypes();
    return types.length == parameters.length + 1
        && Arrays.equals(Arrays.copyOf(types, parameters.length), parameters)
        && types[parameters.length].isAssignableFrom(RateLimitExceededException.class)
        && (returnType == void.class
            ? candidate.getReturnType() == void.class
            : ClassUtils.isAssignable(returnType, candidate.getReturnType()));
  }

  private static boolean sameSignature(Method a, Method b) {
    return Arrays.equals(a.getParameterTypes(), b.getParameterTypes());
  }

  private static Class<?> lastParameter(Method method) {
    return method.getParameterTypes()[method.getParameterCount() - 1];
  }

  private static String signature(Class<?>[] types) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < types.length; i++) {
      b.append(i == 0 ? "" : ", ").append(types[i].getSimpleName());
    }
    return b.toString();
  }
}
