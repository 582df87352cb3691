package io.slidingwindow.redis;

import io.slidingwindow.internal.Checks;
import java.util.HashMap;
import java.util.Map;

/**
 * What a builder's setters were given, so that a setting set twice to different values is an error
 * instead of a silent overwrite (setting it again to an equal value is fine). Not thread-safe, as
 * builders are not.
 */
final class Settings {

  private final Map<String, Object> given = new HashMap<>();

  /**
   * Records {@code value} for {@code setter} and returns it.
   *
   * @throws IllegalStateException if {@code setter} was already given a different value
   */
  <T> T once(String setter, T value) {
    Checks.setOnce(given.get(setter), value, setter);
    given.put(setter, value);
    return value;
  }
}
