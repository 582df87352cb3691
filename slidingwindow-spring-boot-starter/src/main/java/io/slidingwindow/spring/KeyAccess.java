package io.slidingwindow.spring;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.core.convert.TypeDescriptor;
import org.springframework.expression.AccessException;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.MethodExecutor;
import org.springframework.expression.MethodResolver;
import org.springframework.expression.PropertyAccessor;
import org.springframework.expression.spel.support.ReflectiveMethodResolver;
import org.springframework.expression.spel.support.ReflectivePropertyAccessor;

/**
 * What a key expression may read and call: read-only properties and a few methods, each named here,
 * so that an expression cannot call an arbitrary method of the request (a getter with side effects
 * such as {@code getSession}, {@code getInputStream}, or a name lookup such as {@code
 * getRemoteHost}).
 *
 * <p>Properties: every property of {@link RateLimitKeyContext}, the name of a {@link
 * java.security.Principal}, and of the server's request, the parts of its target, method, addresses
 * and content type (the side-effect-free getters listed in {@link #PROPERTIES}). Methods: the
 * root's {@link RateLimitKeyContext#METHODS}, and on text the pure methods of {@link
 * #STRING_METHODS}. Types are matched by name, so that neither web stack's classes need be present.
 * Stateless and thread-safe.
 */
final class KeyAccess {

  /** The methods an expression may call on text. */
  static final Set<String> STRING_METHODS =
      Set.of(
          "startsWith",
          "endsWith",
          "contains",
          "equals",
          "equalsIgnoreCase",
          "isEmpty",
          "isBlank",
          "length",
          "toLowerCase",
          "toUpperCase",
          "trim",
          "strip",
          "substring",
          "indexOf",
          "lastIndexOf",
          "charAt",
          "concat",
          "replace");

  /** The getters an expression may read, by the name of the type that declares them. */
  private static final Map<String, Set<String>> PROPERTIES =
      Map.of(
          "java.security.Principal",
          Set.of("getName"),
          "jakarta.servlet.ServletRequest",
          Set.of(
              "getRemoteAddr",
              "getRemotePort",
              "getLocalAddr",
              "getLocalPort",
              "getScheme",
              "getServerName",
              "getServerPort",
              "getProtocol",
              "getContentType",
              "getContentLength",
              "getContentLengthLong",
              "getCharacterEncoding",
              "isSecure",
              "getDispatcherType"),
          "jakarta.servlet.http.HttpServletRequest",
          Set.of(
              "getRequestURI",
              "getMethod",
              "getQueryString",
              "getContextPath",
              "getServletPath",
              "getPathInfo",
              "getAuthType",
              "getRemoteUser",
              "getUserPrincipal"),
          "org.springframework.http.HttpRequest",
          Set.of("getURI", "getMethod", "getHeaders"),
          "org.springframework.http.server.reactive.ServerHttpRequest",
          Set.of("getId", "getPath", "getQueryParams", "getRemoteAddress", "getLocalAddress"),
          "java.net.URI",
          Set.of(
              "getScheme",
              "getHost",
              "getPort",
              "getPath",
              "getRawPath",
              "getQuery",
              "getRawQuery"),
          "java.net.InetSocketAddress",
          Set.of("getHostString", "getPort", "getAddress"),
          "java.net.InetAddress",
          Set.of("getHostAddress"));

  /** Reads the allowed properties, never writes. */
  static final PropertyAccessor READ =
      new ReflectivePropertyAccessor(false) {
        @Override
        protected boolean isCandidateForProperty(Method method, Class<?> targetClass) {
          return isReadable(method, targetClass);
        }
      };

  /** Resolves the allowed methods, never a static one. */
  static final MethodResolver CALL =
      new ReflectiveMethodResolver() {
        @Override
        public MethodExecutor resolve(
            EvaluationContext context,
            Object target,
            String name,
            List<TypeDescriptor> argumentTypes)
            throws AccessException {
          return target instanceof Class<?>
              ? null
              : super.resolve(context, target, name, argumentTypes);
        }

        @Override
        protected boolean isCandidateForInvocation(Method method, Class<?> targetClass) {
          return isCallable(method, targetClass);
        }
      };

  private KeyAccess() {}

  /** Whether an expression may read {@code method} as a property of a {@code targetClass}. */
  static boolean isReadable(Method method, Class<?> targetClass) {
    if (method.getParameterCount() != 0) {
      return false;
    }
    if (RateLimitKeyContext.class.isAssignableFrom(targetClass)) {
      return method.getDeclaringClass() == RateLimitKeyContext.class;
    }
    for (Map.Entry<String, Set<String>> type : PROPERTIES.entrySet()) {
      if (type.getValue().contains(method.getName()) && isA(targetClass, type.getKey())) {
        return true;
      }
    }
    return false;
  }

  /** Whether an expression may call {@code method} on a {@code targetClass}. */
  static boolean isCallable(Method method, Class<?> targetClass) {
    if (RateLimitKeyContext.class.isAssignableFrom(targetClass)) {
      return method.getDeclaringClass() == RateLimitKeyContext.class
          && RateLimitKeyContext.METHODS.contains(method.getName());
    }
    return targetClass == String.class && STRING_METHODS.contains(method.getName());
  }

  /** Whether {@code type} is, extends or implements the type named {@code name}. */
  private static boolean isA(Class<?> type, String name) {
    if (type == null) {
      return false;
    }
    if (type.getName().equals(name)) {
      return true;
    }
    for (Class<?> implemented : type.getInterfaces()) {
      if (isA(implemented, name)) {
        return true;
      }
    }
    return isA(type.getSuperclass(), name);
  }
}
