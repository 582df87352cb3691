package io.slidingwindow;

/** Validation of the key bound that the keyed limiter and the keyed counters share. */
final class KeyBounds {

  private KeyBounds() {}

  /**
   * Returns {@code maxKeys}.
   *
   * @throws IllegalArgumentException if it is not positive or exceeds {@link Integer#MAX_VALUE}
   */
  static long maxKeys(long maxKeys) {
    if (maxKeys <= 0 || maxKeys > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "maxKeys must be between 1 and " + Integer.MAX_VALUE + ", was " + maxKeys);
    }
    return maxKeys;
  }

  /**
   * Returns {@code overflow}.
   *
   * @throws IllegalArgumentException if it is null
   */
  static KeyOverflow overflow(KeyOverflow overflow) {
    if (overflow == null) {
      throw new IllegalArgumentException("overflow must not be null");
    }
    return overflow;
  }
}
