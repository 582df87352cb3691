package io.slidingwindow.spring.boot.internal;

import java.util.function.Supplier;

/**
 * Hands property values to the library's builders, which hold the only copy of each check, and puts
 * the property's path in front of what they throw: {@code
 * "slidingwindow.http.rules.quotes.limits[0].permits: permits must be positive, was 0"}. For the
 * starter's property classes and configurations.
 */
public final class PropertyChecks {

  private PropertyChecks() {}

  /**
   * The result of {@code call}, which passes the value of {@code property} to a builder.
   *
   * @throws IllegalArgumentException or IllegalStateException, whichever the builder threw, with
   *     {@code property + ": "} before its message and the builder's exception as the cause
   */
  public static <T> T bind(String property, Supplier<T> call) {
    try {
      return call.get();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(property + ": " + e.getMessage(), e);
    } catch (IllegalStateException e) {
      throw new IllegalStateException(property + ": " + e.getMessage(), e);
    }
  }

  /** As {@link #bind(String, Supplier)}, for a builder call that returns nothing of use. */
  public static void check(String property, Runnable call) {
    bind(
        property,
        () -> {
          call.run();
          return null;
        });
  }
}
