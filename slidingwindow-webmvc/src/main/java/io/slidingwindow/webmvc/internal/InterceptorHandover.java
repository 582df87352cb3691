package io.slidingwindow.webmvc.internal;

import java.lang.reflect.Method;

/**
 * Where the module's public interceptor hands over its {@link Access} when its class is
 * initialized. The access is generic in the interceptor's type, so that the interceptor depends on
 * this class only, not on the code of this package that uses the access and names the interceptor.
 */
public final class InterceptorHandover {

  /**
   * What the interceptor hands over: its start-up wiring.
   *
   * @param <I> the interceptor's type
   */
  public interface Access<I> {

    /**
     * Checks and prepares the {@code @RateLimit} of {@code method}, if any, on {@code interceptor}.
     */
    void register(I interceptor, Method method);

    /**
     * Takes {@code ruleName} for {@code owner}, so that no annotation of {@code interceptor} can.
     */
    void reserve(I interceptor, String ruleName, String owner);

    /** Checks a reloaded rule's name against the names of {@code interceptor}'s annotations. */
    void checkRuleName(I interceptor, String ruleName);
  }

  private static volatile Access<?> access;

  private InterceptorHandover() {}

  /**
   * Takes the interceptor's access; the interceptor's class calls it once, when it is initialized.
   *
   * @throws IllegalArgumentException if {@code access} is null
   * @throws IllegalStateException if an access was already handed over
   */
  public static synchronized void install(Access<?> access) {
    if (access == null) {
      throw new IllegalArgumentException("access must not be null");
    }
    if (InterceptorHandover.access != null) {
      throw new IllegalStateException("the interceptor's access is already installed");
    }
    InterceptorHandover.access = access;
  }

  /** The access handed over, or null while the interceptor's class is not initialized. */
  static Access<?> installed() {
    return access;
  }
}
