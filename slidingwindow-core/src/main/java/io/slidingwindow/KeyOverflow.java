package io.slidingwindow;

/**
 * What a keyed limiter does with a request for a new key when it already tracks its maximum number
 * of keys and finds none to evict. To keep the work per request bounded under a flood of new keys,
 * such a request examines a bounded number of tracked keys (16), continuing round-robin from where
 * the previous examination stopped, so a key can be refused while an empty key it did not reach is
 * still tracked; successive requests reach every key in turn, and {@link
 * KeyedRateLimiter#cleanUp()} evicts every empty key at once.
 *
 * <p>Evicting a key whose window still counts permits would forget grants and break the window
 * guarantee for that key, so no policy does that.
 */
public enum KeyOverflow {

  /**
   * Refuse the request (the default). Tracked keys keep their guarantee; new keys are refused until
   * room is found. The refusal's {@link Decision#retryAfter()} is only a hint, and may be early:
   * the longest window, after which every tracked key that got no more traffic can be evicted.
   */
  REFUSE,

  /**
   * Grant the request without counting it. The service stays open to new keys, but they are not
   * limited while the table is full: choose this only when over-admitting them is acceptable. The
   * decision reports {@code remaining = 0}, since nothing is known of the key.
   */
  ALLOW_UNTRACKED
}
