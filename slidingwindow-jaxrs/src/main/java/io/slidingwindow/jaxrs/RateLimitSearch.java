package io.slidingwindow.jaxrs;

import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Path;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.lang.reflect.TypeVariable;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Finds the {@link RateLimit} that applies to a resource method, and the ones that would limit
 * nothing. A method's annotation is looked for as JAX-RS looks for its other annotations: on the
 * method of the resource class, else on the same method (name and parameters) of its superclass,
 * recursively, then of each interface in declaration order, recursively; the first found wins, so
 * the nearest declaration overrides the ones above it. Stateless.
 */
final class RateLimitSearch {

  /**
   * What follows the user class's name in the name of a proxy subclass a container generated:
   * CGLIB's (Spring's, Guice's), Weld's, OpenWebBeans', Javassist's (old and new), Byte Buddy's and
   * Hibernate's.
   */
  private static final List<String> PROXY_MARKERS =
      List.of(
          "$$EnhancerBy",
          "$$SpringCGLIB$$",
          "$Proxy$_$$_Weld",
          "$$Owb",
          "_$$_javassist",
          "_$$_jvst",
          "$ByteBuddy$",
          "$HibernateProxy$");

  /** All that follows the user class's name in the name of a subclass Quarkus ArC generates. */
  private static final List<String> PROXY_SUFFIXES = List.of("_Subclass", "_ClientProxy");

  /** Whether a class was defined at run time, with no class file, as a subclass of one with one. */
  private static final ClassValue<Boolean> GENERATED =
      new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
          Class<?> user = type.getSuperclass();
          return user != null && !hasClassFile(type) && hasClassFile(user);
        }
      };

  private RateLimitSearch() {}

  /**
   * The method whose {@link RateLimit} applies when {@code resourceClass} runs {@code method}: that
   * method or the same method of a supertype; null if none carries one.
   */
  static Method annotated(Class<?> resourceClass, Method method) {
    Class<?> start =
        resourceClass != null && method.getDeclaringClass().isAssignableFrom(resourceClass)
            ? resourceClass
            : method.getDeclaringClass();
    return find(start, method, new LinkedHashSet<>());
  }

  private static Method find(Class<?> type, Method method, Set<Class<?>> seen) {
    if (type == null || type == Object.class || !seen.add(type)) {
      return null;
    }
    Method own = sameMethod(type, method);
    if (own != null && own.isAnnotationPresent(RateLimit.class)) {
      return own;
    }
    Method found = find(type.getSuperclass(), method, seen);
    Class<?>[] contracts = type.getInterfaces();
    for (int i = 0; found == null && i < contracts.length; i++) {
      found = find(contracts[i], method, seen);
    }
    return found;
  }

  /**
   * The method of {@code type} that {@code method} is or overrides: the same name and parameter
   * types, or parameters that a generic supertype declares by a type variable.
   */
  private static Method sameMethod(Class<?> type, Method method) {
    if (type == method.getDeclaringClass()) {
      return method;
    }
    Method candidate = null;
    for (Method declared : type.getDeclaredMethods()) {
      if (declared.isBridge()
          || declared.isSynthetic()
          || Modifier.isStatic(declared.getModifiers())
          || Modifier.isPrivate(declared.getModifiers())
          || !declared.getName().equals(method.getName())
          || declared.getParameterCount() != method.getParameterCount()) {
        continue;
      }
      Class<?>[] theirs = declared.getParameterTypes();
      Class<?>[] ours = method.getParameterTypes();
      boolean exact = true;
      boolean generic = true;
      for (int i = 0; i < ours.length; i++) {
        exact &= theirs[i] == ours[i];
        generic &=
            theirs[i] == ours[i]
                || (declared.getGenericParameterTypes()[i] instanceof TypeVariable<?>
                    && theirs[i].isAssignableFrom(ours[i]));
      }
      if (exact) {
        return declared;
      }
      if (generic) {
        candidate = declared;
      }
    }
    return candidate;
  }

  /**
   * The methods of {@code resourceClass} and its supertypes that carry {@link RateLimit} but are
   * not resource methods (no HTTP method designator such as {@code @GET} on them or on the same
   * method of a supertype): sub-resource locators and plain methods, whose annotation the runtime
   * never hands to a {@link jakarta.ws.rs.container.DynamicFeature}.
   */
  static List<Method> misplaced(Class<?> resourceClass) {
    List<Method> misplaced = new ArrayList<>();
    Set<Class<?>> types = new LinkedHashSet<>();
    supertypes(resourceClass, types);
    for (Class<?> type : types) {
      for (Method declared : type.getDeclaredMethods()) {
        if (declared.isAnnotationPresent(RateLimit.class) && !designated(types, declared)) {
          misplaced.add(declared);
        }
      }
    }
    return misplaced;
  }

  /**
   * Why the annotation on the first of the {@link #misplaced} methods of {@code resourceClass}
   * would limit nothing, naming the method (and {@code resourceClass} when a supertype declares
   * it); null if it has none.
   */
  static String misplacedReason(Class<?> resourceClass) {
    List<Method> misplaced = misplaced(resourceClass);
    if (misplaced.isEmpty()) {
      return null;
    }
    Method method = misplaced.get(0);
    return "@RateLimit on "
        + method.getDeclaringClass().getName()
        + "."
        + method.getName()
        + (method.getDeclaringClass() == resourceClass
            ? ""
            : " (of resource class " + resourceClass.getName() + ")")
        + (locator(method)
            ? " would limit nothing: it is a sub-resource locator (@Path without @GET, @POST, ...),"
                + " which no filter can be bound to; put it on the resource methods of the"
                + " sub-resource"
            : " would limit nothing: it is no resource method (no @GET, @POST, ... on it or on the"
                + " method it overrides)");
  }

  /**
   * What to warn of when {@code root} is an interface-based proxy ({@link Proxy}), whose class is
   * no subclass of the class behind it: its resource methods that no {@link RateLimit} on its
   * interfaces limits, since one on the class behind the proxy cannot be seen; null if it is no
   * such proxy, or if every resource method of it has one.
   */
  static String hiddenBehindInterfaceProxy(Class<?> root) {
    if (!Proxy.isProxyClass(root)) {
      return null;
    }
    Set<String> unseen = new TreeSet<>();
    for (Method method : root.getMethods()) {
      if (!Modifier.isStatic(method.getModifiers())
          && resourceMethod(root, method)
          && annotated(root, method) == null) {
        unseen.add(method.getName());
      }
    }
    if (unseen.isEmpty()) {
      return null;
    }
    List<String> contracts = new ArrayList<>();
    for (Class<?> contract : root.getInterfaces()) {
      contracts.add(contract.getName());
    }
    return "Root resource "
        + root.getName()
        + " is an interface-based proxy of "
        + contracts
        + ": @RateLimit is read from those interfaces only, so one on the class behind the proxy"
        + " cannot be seen and limits nothing; its resource methods "
        + unseen
        + " have none. Put @RateLimit on the interfaces' methods, or register the class itself or"
        + " a class-based proxy of it.";
  }

  /**
   * Whether {@code type} may be a root resource class: {@code @Path} on it or on one of its
   * supertypes (RESTEasy also takes it from an interface, and a proxy subclass may hide it).
   */
  static boolean rootResource(Class<?> type) {
    Set<Class<?>> types = new LinkedHashSet<>();
    supertypes(type, types);
    for (Class<?> candidate : types) {
      if (candidate.isAnnotationPresent(Path.class)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether {@code method}, which has no HTTP method, is a sub-resource locator: a {@code @Path} on
   * it or on the method of a supertype that it overrides.
   */
  static boolean locator(Method method) {
    Set<Class<?>> types = new LinkedHashSet<>();
    supertypes(method.getDeclaringClass(), types);
    for (Class<?> type : types) {
      Method same = sameMethod(type, method);
      if (same != null && same.isAnnotationPresent(Path.class)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether {@code method}, a public method of {@code type} (declared there or inherited), is a
   * resource method of {@code type}: an HTTP method designator on it or on the same method of one
   * of {@code type}'s supertypes.
   */
  static boolean resourceMethod(Class<?> type, Method method) {
    Set<Class<?>> types = new LinkedHashSet<>();
    supertypes(type, types);
    return designated(types, method);
  }

  /**
   * Whether {@code method}, a public method of {@code type} that is no resource method, is a
   * sub-resource locator of {@code type}: a {@code @Path} on it or on the same method of one of
   * {@code type}'s supertypes.
   */
  static boolean locatorOf(Class<?> type, Method method) {
    Set<Class<?>> types = new LinkedHashSet<>();
    supertypes(type, types);
    for (Class<?> candidate : types) {
      Method same = sameMethod(candidate, method);
      if (same != null && same.isAnnotationPresent(Path.class)) {
        return true;
      }
    }
    return false;
  }

  /**
   * {@code method} as the user's class declares or inherits it, when the class declaring it is a
   * proxy subclass that a container generated and overrides the user's methods: so the resource of
   * a root registered as a proxy is the same as its user class reached through a locator, and a
   * default name reads the user class, the same in every instance of the application (a proxy's
   * name may end in a random suffix). A proxy is a subclass that is synthetic; or that was defined
   * at run time (its class loader has no class file for it, and one for its superclass), whoever
   * generated it; or that is named after its direct superclass followed by a marker of CGLIB,
   * Spring, Guice, Weld, OpenWebBeans, Javassist, Byte Buddy or Hibernate ({@code
   * User$$EnhancerBySpringCGLIB$$1a2b}, {@code User$$SpringCGLIB$$0}, {@code
   * User$Proxy$_$$_WeldClientProxy}, {@code User_$$_jvst1a_0}, {@code User$ByteBuddy$x1Y2z3},
   * {@code User$HibernateProxy$x1Y2z3}), or by {@code _Subclass} or {@code _ClientProxy} alone
   * (Quarkus ArC, which generates its classes when the application is built). Any other class with
   * {@code $$} in its name (Scala's {@code $$anon}, say) is a class of its own. Else {@code
   * method}.
   */
  static Method userMethod(Method method) {
    Class<?> user = method.getDeclaringClass();
    while (proxy(user)) {
      user = user.getSuperclass();
    }
    if (user == method.getDeclaringClass()) {
      return method;
    }
    try {
      return user.getMethod(method.getName(), method.getParameterTypes());
    } catch (NoSuchMethodException e) {
      return method; // the proxy's own method
    }
  }

  private static boolean proxy(Class<?> type) {
    Class<?> user = type.getSuperclass();
    if (user == null || user == Object.class) {
      return false;
    }
    if (type.isSynthetic() || GENERATED.get(type)) {
      return true;
    }
    String name = type.getName();
    if (!name.startsWith(user.getName())) {
      return false;
    }
    String rest = name.substring(user.getName().length());
    return PROXY_MARKERS.stream().anyMatch(rest::startsWith) || PROXY_SUFFIXES.contains(rest);
  }

  /** Whether the class loader of {@code type} has a class file for it. */
  private static boolean hasClassFile(Class<?> type) {
    if (type.isHidden()) {
      return false;
    }
    String file = type.getName().replace('.', '/') + ".class";
    ClassLoader loader = type.getClassLoader();
    return (loader == null ? ClassLoader.getSystemResource(file) : loader.getResource(file))
        != null;
  }

  private static void supertypes(Class<?> type, Set<Class<?>> types) {
    if (type == null || type == Object.class || !types.add(type)) {
      return;
    }
    supertypes(type.getSuperclass(), types);
    for (Class<?> contract : type.getInterfaces()) {
      supertypes(contract, types);
    }
  }

  /** Whether {@code method}, or the same method of one of {@code types}, has an HTTP method. */
  private static boolean designated(Set<Class<?>> types, Method method) {
    for (Class<?> type : types) {
      Method same = sameMethod(type, method);
      if (same == null) {
        same = sameReversed(type, method);
      }
      if (same != null && hasHttpMethod(same)) {
        return true;
      }
    }
    return false;
  }

  /** The method of {@code type} that overrides {@code method} of a supertype, if any. */
  private static Method sameReversed(Class<?> type, Method method) {
    for (Method declared : type.getDeclaredMethods()) {
      if (!declared.isBridge()
          && declared.getName().equals(method.getName())
          && sameMethod(method.getDeclaringClass(), declared) == method) {
        return declared;
      }
    }
    return null;
  }

  private static boolean hasHttpMethod(Method method) {
    for (Annotation annotation : method.getAnnotations()) {
      if (annotation.annotationType().isAnnotationPresent(HttpMethod.class)) {
        return true;
      }
    }
    return false;
  }
}
