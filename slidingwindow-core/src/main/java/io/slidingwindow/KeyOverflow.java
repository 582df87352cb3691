package io.slidingwindow;

/**
 * What a keyed limiter does with a request for a new key when it already tracks its maximum number
 * of keys and none of them can be evicted (every tracked key still counts permits).
 *
 * <p>Evicting a key whose window still counts permits would forget grants and break the window
 * guarantee for that key, so no policy does that.
 */
public enum KeyOverflow {

  /**
   * Refuse the request (the default). Tracked keys keep their guarantee; new keys are refused
   * until a tracked key's windows empty. The refusal's {@link Decision#retryAfter()} is a hint: the
   * longest window, after which every tracked key that got no more traffic can be evicted.
   */
  REFUSE,

  /**
   * Grant the request without counting it. The service stays open to new keys, but they are not
   * limited while the table is full: choose this only when over-admitting them is acceptable.
   */
  ALLOW_UNTRACKED
}
