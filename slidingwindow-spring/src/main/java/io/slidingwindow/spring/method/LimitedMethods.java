package io.slidingwindow.spring.method;

import io.slidingwindow.spring.RateLimit;
import java.lang.reflect.Method;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.MergedAnnotations;

/**
 * The methods the post-processor limits: every {@link RateLimit} method of a bean (found on the
 * method, or on the method it overrides or implements), except a controller's request handlers,
 * which the web layer limits per request. A handler is what Spring's {@code
 * RequestMappingHandlerMapping} takes for one: a method that carries {@code @RequestMapping} or
 * {@code @HttpExchange} (or an annotation meta-annotated with either, such as {@code @GetMapping})
 * in a class that carries {@code @Controller} (or {@code @RestController}). Every other method of a
 * controller is limited here: a GraphQL {@code @QueryMapping}, a {@code @MessageMapping}, a plain
 * method. Names are compared as text, so that Spring Web need not be on the class path. Stateless.
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
    RateLimit annotation = AnnotatedElementUtils.findMergedAnnotation(method, RateLimit.class);
    return annotation == null || webHandler(method, type) ? null : annotation;
  }

  /**
   * The method that declares the {@link RateLimit} found on {@code method}: {@code method}, or the
   * one it overrides or implements that carries it.
   */
  static Method declaration(Method method) {
    return (Method)
        MergedAnnotations.from(method, MergedAnnotations.SearchStrategy.TYPE_HIERARCHY)
            .get(RateLimit.class)
            .getSource();
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
