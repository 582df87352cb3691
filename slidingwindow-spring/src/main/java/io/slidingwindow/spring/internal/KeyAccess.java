package io.slidingwindow.spring.internal;

import io.slidingwindow.spring.RateLimitKeyContext;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
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
 * <p>Properties: every property of {@link RateLimitKeyContext} ({@link #ROOT_PROPERTIES}), the name
 * of a {@link java.security.Principal}, and of the server's request, the parts of its target,
 * method, addresses and content type (the side-effect-free getters listed in {@link #PROPERTIES}).
 * Methods: the root's {@link #ROOT_METHODS}, and on text the pure methods of {@link
 * #STRING_METHODS}. Types are matched by name, so that neither web stack's classes need be present.
 * Stateless and thread-safe.
 */
final class KeyAccess {

  /** The root properties an expression may read. */
  static final Set<String> ROOT_PROPERTIES =
      Set.of(
          "clientIp",
          "principal",
          "principalName",
          "global",
          "pathVariables",
          "method",
          "path",
          "rawPath",
          "request");

  /** The root methods an expression may call. */
  static final Set<String> ROOT_METHODS = Set.of("header", "headerValue", "key");

  /** The variables an expression may read. */
  static final Set<String> VARIABLES =
      Set.of("clientIp", "principal", "pathVariables", "request", "root", "this");

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

  /** The names a request's key expression may read at its root and in variables. */
  static final Vocabulary REQUEST = new Vocabulary(ROOT_PROPERTIES, ROOT_METHODS, VARIABLES);

  /** The type names whose getters only the web's list allows; none of the application's own. */
  private static final List<String> PLATFORM =
      List.of(
          "java.",
          "javax.",
          "jdk.",
          "sun.",
          "com.sun.",
          "jakarta.",
          "org.springframework.",
          "reactor.",
          "io.netty.",
          "kotlin.",
          "groovy.");

  /**
   * The names an expression may read from its root (properties and methods) and as variables.
   *
   * @param properties the root's properties
   * @param methods the root's methods
   * @param variables the variables, without {@code #}
   */
  record Vocabulary(Set<String> properties, Set<String> methods, Set<String> variables) {}

  /**
   * Reads, of a bean method's arguments, what {@link #READ} reads and the properties of the
   * application's own types (getters and record components of a type outside the JDK, Jakarta,
   * Spring and the like), never writes.
   */
  static final PropertyAccessor READ_ARGUMENTS =
      new ReflectivePropertyAccessor(false) {
        @Override
        protected boolean isCandidateForProperty(Method method, Class<?> targetClass) {
          return isReadable(method, targetClass) || isApplicationProperty(method, targetClass);
        }
      };

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

  /**
   * Whether {@code method} reads a property of an application type: a getter ({@code getX()},
   * {@code isX()}) or a record component's accessor, declared by a type that is not the platform's
   * or {@link MethodKeyContext}, whose getters are the root's.
   */
  static boolean isApplicationProperty(Method method, Class<?> targetClass) {
    Class<?> declaring = method.getDeclaringClass();
    if (method.getParameterCount() != 0
        || method.getReturnType() == void.class
        || Modifier.isStatic(method.getModifiers())) {
      return false;
    }
    if (declaring == MethodKeyContext.class) {
      return true;
    }
    if (isPlatform(declaring)) {
      return false;
    }
    String name = method.getName();
    if (declaring.isRecord()) {
      for (RecordComponent component : declaring.getRecordComponents()) {
        if (component.getName().equals(name)) {
          return true;
        }
      }
    }
    return (name.startsWith("get") && name.length() > 3)
        || (name.startsWith("is")
            && name.length() > 2
            && (method.getReturnType() == boolean.class
                || method.getReturnType() == Boolean.class));
  }

  private static boolean isPlatform(Class<?> type) {
    String name = type.getName();
    for (String prefix : PLATFORM) {
      if (name.startsWith(prefix)) {
        return true;
      }
    }
    return type.isPrimitive() || type.isArray();
  }

  /** Whether an expression may call {@code method} on a {@code targetClass}. */
  static boolean isCallable(Method method, Class<?> targetClass) {
    if (MethodKeyContext.class.isAssignableFrom(targetClass)) {
      return method.getDeclaringClass() == MethodKeyContext.class
          && MethodKeyContext.METHODS.contains(method.getName());
    }
    if (RateLimitKeyContext.class.isAssignableFrom(targetClass)) {
      return method.getDeclaringClass() == RateLimitKeyContext.class
          && ROOT_METHODS.contains(method.getName());
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
