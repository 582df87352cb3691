package io.slidingwindow.jaxrs;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The classes a sub-resource locator may have returned, for {@link LocatorCount}: the one it is
 * declared to return; for a locator declared to return a contract (an interface or an abstract
 * class, a bounded type variable), the contract and the concrete resource classes known to
 * implement it (those the start-up walk reached, those the runtime configured since); and the
 * classes it was seen returning. Thread-safe.
 */
final class LocatorTargets {

  private static final System.Logger LOG = System.getLogger(RateLimitFeature.class.getName());

  /** The limited resource methods of a class, each with the method carrying its annotation. */
  private static final ClassValue<List<Method[]>> LIMITED =
      new ClassValue<>() {
        @Override
        protected List<Method[]> computeValue(Class<?> type) {
          return limitedMethods(type);
        }
      };

  /** The concrete resource classes known: those the walk reached, those the runtime configured. */
  private final Set<Class<?>> known = ConcurrentHashMap.newKeySet();

  /**
   * What to warn of, at the start, about {@code locator}, declared to return a type that leads to
   * no class known ({@code Object}, or a contract that no class known implements and that limits
   * nothing itself).
   */
  static String unfollowed(Method locator) {
    return "Sub-resource locator "
        + locator.getDeclaringClass().getName()
        + "."
        + locator.getName()
        + " is declared to return "
        + locator.getGenericReturnType().getTypeName()
        + ", which leads to no class known at the start with @RateLimit: a request that ends in it"
        + " (its lookup throws, or 405) is counted by @RateLimit only against the classes it has"
        + " been seen returning since the start, to a request that reached one of their resource"
        + " methods; until then, not at all. Declare the class it returns, or put a rule over its"
        + " paths (RateLimitFilter).";
  }

  /**
   * Notes the concrete classes {@code walk} reached at the start, and warns of each locator it
   * reached that leads to no class known: nothing would count a request that ends in it.
   */
  void start(ResourceWalk walk) {
    know(walk.classes());
    for (Method open : walk.open()) {
      ResourceWalk.Lead lead = ResourceWalk.lead(open.getGenericReturnType());
      if (lead == null || limited(lead, Set.of(), List.of()).isEmpty()) {
        LOG.log(System.Logger.Level.WARNING, unfollowed(open));
      }
    }
  }

  /** Notes {@code types} as concrete resource classes that the application serves. */
  void know(Collection<Class<?>> types) {
    for (Class<?> type : types) {
      if (!abstractType(type)) {
        known.add(type);
      }
    }
  }

  /**
   * The limited methods a request that ended in a locator leading to {@code lead} (null: nowhere),
   * seen returning {@code seen}, counts against, each annotation once: those of the class it is
   * declared to return; for a contract, those the contract declares and those of the known classes
   * that implement it; those of the classes it was seen returning; and those of {@code levels}, the
   * sub-resources the request passed through (whose own locator it ran), by their real classes.
   */
  List<Method[]> limited(ResourceWalk.Lead lead, Set<Class<?>> seen, List<Object> levels) {
    Map<Method, Method[]> byAnnotation = new LinkedHashMap<>();
    if (lead != null && lead.concrete()) {
      add(byAnnotation, LIMITED.get(lead.type()));
    } else {
      for (Class<?> type : known) {
        if (lead != null && lead.type().isAssignableFrom(type)) {
          add(byAnnotation, LIMITED.get(type));
        }
      }
      for (Class<?> type : seen) {
        add(byAnnotation, LIMITED.get(type));
      }
      if (lead != null) {
        // a contract's own limits, when no class known implements them (then its rule is used)
        add(byAnnotation, contractLimited(lead.type()));
      }
    }
    for (Object level : levels) {
      add(byAnnotation, LIMITED.get(level.getClass()));
    }
    return List.copyOf(byAnnotation.values());
  }

  private static void add(Map<Method, Method[]> byAnnotation, List<Method[]> limited) {
    for (Method[] pair : limited) {
      byAnnotation.putIfAbsent(pair[1], pair);
    }
  }

  /** The resource methods with {@link RateLimit} that contract {@code type} itself declares. */
  private static List<Method[]> contractLimited(Class<?> type) {
    List<Method[]> limited = new ArrayList<>();
    addLimited(limited, type);
    return limited;
  }

  /** Adds each public resource method of {@code type} with its annotated method to {@code out}. */
  private static void addLimited(List<Method[]> out, Class<?> type) {
    for (Method method : publicMethods(type)) {
      if (RateLimitSearch.resourceMethod(type, method)) {
        Method annotated = RateLimitSearch.annotated(type, method);
        if (annotated != null) {
          out.add(new Method[] {method, annotated});
        }
      }
    }
  }

  private static boolean abstractType(Class<?> type) {
    return type.isInterface() || Modifier.isAbstract(type.getModifiers());
  }

  /** The limited resource methods of {@code type}, with the methods carrying their annotations. */
  private static List<Method[]> limitedMethods(Class<?> type) {
    List<Method[]> limited = new ArrayList<>();
    if (type.isPrimitive()
        || type.isArray()
        || abstractType(type)
        || type.getName().startsWith("java.")) {
      return limited;
    }
    addLimited(limited, type);
    return limited;
  }

  static List<Method> publicMethods(Class<?> type) {
    List<Method> methods = new ArrayList<>();
    for (Method method : type.getMethods()) {
      if (!method.isBridge()
          && !method.isSynthetic()
          && !Modifier.isStatic(method.getModifiers())
          && method.getDeclaringClass() != Object.class) {
        methods.add(method);
      }
    }
    return methods;
  }
}
