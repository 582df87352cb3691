package io.slidingwindow;

/**
 * Thrown by {@link RollingCounters#addAndGet} under {@link KeyOverflow#REFUSE} when the key is new,
 * {@link #maxKeys()} keys are tracked and none could be evicted: nothing was recorded, and the
 * key's sum is unknown. A threshold check should treat it as over every threshold (fail closed).
 *
 * <p>It reports a policy, not a bug, and may be thrown often under a flood of new keys, so it
 * carries no stack trace.
 */
public final class KeyOverflowException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final long maxKeys;

  KeyOverflowException(long maxKeys) {
    super(
        "no room for a new key: maxKeys (" + maxKeys + ") keys are tracked, none of them empty",
        null,
        false,
        false);
    this.maxKeys = maxKeys;
  }

  /**
   * The most keys tracked at once, all of them tracked when this was thrown: the value given to the
   * builder's {@code maxKeys(long)}, or its default.
   */
  public long maxKeys() {
    return maxKeys;
  }
}
