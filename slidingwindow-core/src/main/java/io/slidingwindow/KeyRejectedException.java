package io.slidingwindow;

/**
 * Thrown by a {@link KeyedRateLimiter} for a key it will not count as given, such as a key its
 * store cannot hold or an id it does not know: the key is wrong, not the request.
 *
 * <p>The web integrations count such a request under its client's address instead, with the rule's
 * limits, and tell the listeners. Any other {@link IllegalArgumentException} from a limiter is a
 * request it could not decide, which they refuse, counted nowhere: an error that is not about the
 * key must never move a request to a key with other limits. The library's own limiters throw this
 * for no key (they count any string, a long one as its digest); a null key is an {@link
 * IllegalArgumentException}, as a wrong argument anywhere.
 */
public final class KeyRejectedException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  /**
   * A rejection saying why.
   *
   * @param message why the key is rejected, for the log; it should not repeat the key, which may be
   *     a client's secret
   */
  public KeyRejectedException(String message) {
    super(message);
  }

  /**
   * A rejection saying why, caused by {@code cause}.
   *
   * @param message why the key is rejected, as {@link #KeyRejectedException(String)}
   * @param cause what found the key wrong
   */
  public KeyRejectedException(String message, Throwable cause) {
    super(message, cause);
  }
}
