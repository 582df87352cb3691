package io.slidingwindow.internal;

import io.slidingwindow.KeyOverflow;

/**
 * The key bound of the in-process keyed builders ({@link io.slidingwindow.KeyedRateLimiter.Builder}
 * and {@link io.slidingwindow.RollingCounters.Builder}): the most keys tracked at once and what
 * happens to new keys beyond it. Each may be set once: setting it again to a different value throws
 * {@link IllegalStateException}. Not thread-safe, as the builders are not.
 *
 * @param <B> the builder that holds it, which each setter returns for chaining
 */
public final class KeyBound<B> {

  /** The bound on tracked keys unless one is set. */
  public static final long DEFAULT_MAX_KEYS = 100_000;

  private final B builder;

  /** Null until set. */
  private Long maxKeys;

  /** Null until set. */
  private KeyOverflow overflow;

  /** A bound, neither part set, whose setters return {@code builder}. */
  public KeyBound(B builder) {
    this.builder = builder;
  }

  /**
   * Sets the most keys tracked at once; returns the builder.
   *
   * @throws IllegalArgumentException if {@code maxKeys} is not positive or exceeds {@link
   *     Integer#MAX_VALUE}
   * @throws IllegalStateException if a different bound was set
   */
  public B maxKeys(long maxKeys) {
    Checks.requireBetween(maxKeys, 1, Integer.MAX_VALUE, "maxKeys");
    this.maxKeys = Checks.setOnce(this.maxKeys, maxKeys, "maxKeys");
    return builder;
  }

  /**
   * Sets what happens to new keys while {@link #maxKeys()} keys are tracked; returns the builder.
   *
   * @throws IllegalArgumentException if {@code overflow} is null
   * @throws IllegalStateException if a different policy was set
   */
  public B onKeyOverflow(KeyOverflow overflow) {
    Checks.requireNonNull(overflow, "overflow");
    this.overflow = Checks.setOnce(this.overflow, overflow, "onKeyOverflow");
    return builder;
  }

  /** The bound set, or {@link #DEFAULT_MAX_KEYS}. */
  public int maxKeys() {
    return (int) (maxKeys == null ? DEFAULT_MAX_KEYS : maxKeys);
  }

  /** The policy set, or {@link KeyOverflow#REFUSE}. */
  public KeyOverflow overflow() {
    return overflow == null ? KeyOverflow.REFUSE : overflow;
  }
}
