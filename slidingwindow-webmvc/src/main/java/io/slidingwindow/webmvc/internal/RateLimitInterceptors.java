package io.slidingwindow.webmvc.internal;

import io.slidingwindow.webmvc.RateLimitInterceptor;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Method;

/**
 * The start-up wiring of a {@link RateLimitInterceptor} that the Spring Boot starter does and the
 * interceptor's public API does not offer: checking annotated handler methods ahead of their first
 * request, and keeping rule names unique across the filter's rules and the annotations. It goes
 * through the access the interceptor hands over to {@link InterceptorHandover} when its class is
 * initialized.
 */
public final class RateLimitInterceptors {

  private RateLimitInterceptors() {}

  /**
   * Checks and prepares the {@code @RateLimit} of {@code method}, if any, so that a bad one stops
   * start-up rather than failing its first request.
   *
   * @throws IllegalArgumentException naming the method if its annotation is invalid, or naming both
   *     owners if its rule name is already taken by another method or a reserved rule
   */
  public static void register(RateLimitInterceptor interceptor, Method method) {
    access().register(interceptor, method);
  }

  /**
   * Takes {@code ruleName} for {@code owner} (a filter rule), so that no annotation of {@code
   * interceptor} can use it: each rule name stands for one limiter, one metric series and, on a
   * shared backend, one key space.
   *
   * @throws IllegalArgumentException naming both owners if an annotation already uses the name
   */
  public static void reserve(RateLimitInterceptor interceptor, String ruleName, String owner) {
    access().reserve(interceptor, ruleName, owner);
  }

  /**
   * Checks the name of a rule of a reloaded configuration against the names of {@code
   * interceptor}'s annotations.
   *
   * @throws IllegalArgumentException naming the annotated method if an annotation has it
   */
  public static void checkRuleName(RateLimitInterceptor interceptor, String ruleName) {
    access().checkRuleName(interceptor, ruleName);
  }

  /**
   * The interceptor's access: only the interceptor's class installs one, so its type is the
   * interceptor's.
   */
  @SuppressWarnings("unchecked")
  private static InterceptorHandover.Access<RateLimitInterceptor> access() {
    InterceptorHandover.Access<?> current = InterceptorHandover.installed();
    if (current == null) {
      try {
        MethodHandles.lookup().ensureInitialized(RateLimitInterceptor.class);
      } catch (IllegalAccessException e) {
        throw new IllegalStateException("cannot initialize " + RateLimitInterceptor.class, e);
      }
      current = InterceptorHandover.installed();
    }
    return (InterceptorHandover.Access<RateLimitInterceptor>) current;
  }
}
