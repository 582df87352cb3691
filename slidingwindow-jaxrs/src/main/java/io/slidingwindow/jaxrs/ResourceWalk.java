package io.slidingwindow.jaxrs;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The resource classes an application can serve, found from its root resource classes by following
 * their sub-resource locators (methods with {@code @Path} and no HTTP method) to the types they
 * declare they return, recursively, each type once (a locator may return its own class).
 *
 * <p>A locator declared to return a concrete class leads to that class. One declared to return an
 * interface, an abstract class, a type variable with a bound, or {@code Class<? extends T>} leads
 * to a contract: the runtime serves whatever class the locator hands it, unknown here, so only what
 * the contract itself declares can be read. One declared to return {@code Object}, {@code Class<?>}
 * or a type variable without a bound leads nowhere. Read only once built.
 */
final class ResourceWalk {

  /**
   * A resource method with {@link RateLimit}: {@code method} as {@code type}'s public methods show
   * it, {@code annotated} the method that carries the annotation.
   */
  record Annotated(Class<?> type, Method method, Method annotated) {}

  private final Set<Class<?>> reached = new LinkedHashSet<>();
  private final Set<Class<?>> classes = new LinkedHashSet<>();
  private final List<Annotated> annotated = new ArrayList<>();
  private final List<Method> open = new ArrayList<>();

  private ResourceWalk() {}

  /**
   * Walks from {@code roots}, in order, each taken as a concrete class, then the types their
   * locators lead to, breadth first.
   */
  static ResourceWalk from(Collection<Class<?>> roots) {
    ResourceWalk walk = new ResourceWalk();
    Deque<Class<?>> pending = new ArrayDeque<>();
    for (Class<?> root : roots) {
      walk.reach(root, true, pending);
    }
    while (!pending.isEmpty()) {
      Class<?> type = pending.removeFirst();
      for (Method method : type.getMethods()) {
        if (method.isBridge()
            || method.isSynthetic()
            || Modifier.isStatic(method.getModifiers())
            || method.getDeclaringClass() == Object.class) {
          continue;
        }
        if (RateLimitSearch.resourceMethod(type, method)) {
          Method carrier = RateLimitSearch.annotated(type, method);
          if (carrier != null) {
            walk.annotated.add(new Annotated(type, method, carrier));
          }
        } else if (RateLimitSearch.locatorOf(type, method)
            && !walk.follow(method.getGenericReturnType(), pending)) {
          walk.open.add(method);
        }
      }
    }
    return walk;
  }

  /** The concrete classes reached, roots first. */
  Set<Class<?>> classes() {
    return classes;
  }

  /**
   * Whether {@code type}, reached, is only a contract: no locator (and no registration) names it as
   * a concrete class, so the class the runtime serves for it is not known.
   */
  boolean contract(Class<?> type) {
    return !classes.contains(type);
  }

  /** The resource methods with {@link RateLimit} of every type reached, in the order reached. */
  List<Annotated> annotated() {
    return annotated;
  }

  /**
   * The locators reached that lead to no concrete class (declared to return a contract, or {@code
   * Object}, {@code Class<?>}, a type variable without a bound), in the order reached.
   */
  List<Method> open() {
    return open;
  }

  private void reach(Class<?> type, boolean concrete, Deque<Class<?>> pending) {
    if (type == null
        || type.isPrimitive()
        || type.isArray()
        || type.getName().startsWith("java.")) {
      return; // Object, Class, a JDK type: nothing a resource is declared by
    }
    if (concrete) {
      classes.add(type);
    }
    if (reached.add(type)) {
      pending.addLast(type);
    }
  }

  /**
   * Where a locator declared to return {@code returned} leads: a class, concrete ({@code Cart},
   * {@code Class<Cart>}) or a contract (an interface or abstract class, {@code Class<? extends T>}
   * or a type variable bound by {@code T}); null for none ({@code Object}, {@code Class<?>}, a type
   * variable without a bound, a JDK type).
   */
  record Lead(Class<?> type, boolean concrete) {}

  /** Where a locator declared to return {@code returned} leads; null if nowhere. */
  static Lead lead(Type returned) {
    Class<?> type = null;
    boolean concrete = false;
    if (returned instanceof Class<?> plain) {
      type = plain;
      concrete = !abstractType(plain);
    } else if (returned instanceof ParameterizedType parameterized
        && parameterized.getRawType() == Class.class) {
      Type argument = parameterized.getActualTypeArguments()[0];
      if (argument instanceof Class<?> plain) {
        type = plain;
        concrete = !abstractType(plain);
      } else if (argument instanceof WildcardType wildcard) {
        type = erasure(wildcard.getUpperBounds()[0]);
      }
    } else if (returned instanceof ParameterizedType parameterized) {
      return lead(parameterized.getRawType());
    } else if (returned instanceof TypeVariable<?> variable) {
      type = erasure(variable.getBounds()[0]);
    }
    if (type == null
        || type.isPrimitive()
        || type.isArray()
        || type.getName().startsWith("java.")) {
      return null; // Object, Class, a JDK type: nothing a resource is declared by
    }
    return new Lead(type, concrete);
  }

  /**
   * Reaches the type a locator declared to return {@code returned} leads to, if any; whether it is
   * a concrete class.
   */
  private boolean follow(Type returned, Deque<Class<?>> pending) {
    Lead lead = lead(returned);
    if (lead == null) {
      return false;
    }
    reach(lead.type(), lead.concrete(), pending);
    return lead.concrete();
  }

  private static Class<?> erasure(Type type) {
    if (type instanceof Class<?> plain) {
      return plain;
    }
    if (type instanceof ParameterizedType parameterized) {
      return erasure(parameterized.getRawType());
    }
    return null;
  }

  private static boolean abstractType(Class<?> type) {
    return type.isInterface() || Modifier.isAbstract(type.getModifiers());
  }
}
