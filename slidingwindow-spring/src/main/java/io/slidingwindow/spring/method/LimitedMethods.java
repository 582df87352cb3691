package io.slidingwindow.spring.method;

import io.slidingwindow.spring.RateLimit;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.util.ClassUtils;

/**
 * The methods the post-processor limits: every {@link RateLimit} method of a bean (found on the
 * method, or on the method it overrides or implements, or on the method of the bean's interface
 * that a method it inherits implements), except a controller's request handlers, which the web
 * layer limits per request. A handler is what Spring's {@code RequestMappingHandlerMapping} takes
 * for one: a method that carries {@code @RequestMapping} or {@code @HttpExchange} (or an annotation
 * meta-annotated with either, such as {@code @GetMapping}) in a class that carries
 * {@code @Controller} (or {@code @RestController}). Every other method of a controller is limited
 * here: a GraphQL {@code @QueryMapping}, a {@code @MessageMapping}, a plain method. Names are
 * compared as text, so that Spring Web need not be on the class path. Stateless.
 */
final class LimitedMethods extends StaticMethodMatcherPointcut {

  private static final String CONTROLLER = "org.springframework.stereotype.Controller";

  private static final String REQUEST_MAPPING =
      "org.springframework.web.bind.annotation.RequestMapping";

  private static final String HTTP_EXCHANGE =
      "org.springframework.web.service.annotation.HttpExchange";

  @Override
  public boolean matches(Method method, Class<?> targetClass) {
    Class<?> type = targetClass != null ? targetClass : method.getDeclaringClass();
    return annotation(RateLimitMethodPostProcessor.specific(method, type), type) != null;
  }

  /**
   * The {@link RateLimit} of {@code method} (the method of {@code type} a call runs), or null if it
   * has none or the web layer limits it.
   */
  static RateLimit annotation(Method method, Class<?> type) {
    MergedAnnotation<RateLimit> found = find(method, type);
    return !found.isPresent() || webHandler(method, type) ? null : found.synthesize();
  }

  /**
   * The method that declares the {@link RateLimit} that {@code method} of {@code type} carries:
   * {@code method}, or the one it overrides or implements that carries it.
   */
  static Method declaration(Method method, Class<?> type) {
    return (Method) find(method, type).getSource();
  }

  /**
   * The {@link RateLimit} of {@code method}, the method of {@code type} that a call runs: on the
   * method, or on one it overrides or implements in its own class's hierarchy, or else on a method
   * of one of {@code type}'s interfaces that {@code type} implements with {@code method}, inherited
   * from a superclass that does not implement that interface ({@code class JdbcOrders extends Dao
   * implements Orders}, where {@code Dao.find} implements {@code Orders.find}): the proxy runs that
   * method for every call of the interface's.
   */
  private static MergedAnnotation<RateLimit> find(Method method, Class<?> type) {
    MergedAnnotation<RateLimit> found =
        MergedAnnotations.from(method, MergedAnnotations.SearchStrategy.TYPE_HIERARCHY)
            .get(RateLimit.class);
    Class<?> declaring = method.getDeclaringClass();
    if (found.isPresent() || type == null || type.isInterface() || declaring == type) {
      return found;
    }
    for (Class<?> implemented : ClassUtils.getAllInterfacesForClassAsSet(type)) {
      if (implemented.isAssignableFrom(declaring)) {
        continue; // searched above
      }
      for (Method candidate : implemented.getDeclaredMethods()) {
        if (candidate.getName().equals(method.getName())
            && candidate.getParameterCount() == method.getParameterCount()
            && !Modifier.isStatic(candidate.getModifiers())
            && RateLimitMethodPostProcessor.specific(candidate, type).equals(method)) {
          MergedAnnotation<RateLimit> inherited =
              MergedAnnotations.from(candidate, MergedAnnotations.SearchStrategy.TYPE_HIERARCHY)
                  .get(RateLimit.class);
          if (inherited.isPresent()) {
            return inherited;
          }
        }
      }
    }
    return found;
  }

  /** Whether {@code type} is a web controller (carries {@code @Controller}). */
  static boolean controller(Class<?> type) {
    return MergedAnnotations.from(type, MergedAnnotations.SearchStrategy.TYPE_HIERARCHY)
        .isPresent(CONTROLLER);
  }

  /** Whether the web layer limits {@code method} of {@code type}, as a request handler. */
  static boolean webHandler(Method method, Class<?> type) {
    if (!controller(type)) {
      return false;
    }
    MergedAnnotations onMethod =
        MergedAnnotations.from(method, MergedAnnotations.SearchStrategy.TYPE_HIERARCHY);
    return onMethod.isPresent(REQUEST_MAPPING) || onMethod.isPresent(HTTP_EXCHANGE);
  }
}
