package io.slidingwindow.internal;

import io.slidingwindow.Decision;
import io.slidingwindow.Limit;
import java.util.List;

/** Validation of a request's permits against the limits of a limiter; shared by every backend. */
public final class Permits {

  private Permits() {}

  /** The largest request every one of {@code limits} could ever grant. */
  public static long largestGrantable(List<Limit> limits) {
    long max = Long.MAX_VALUE;
    for (Limit limit : limits) {
      max = Math.min(max, limit.permits());
    }
    return max;
  }

  /**
   * The refusal of a request for {@code permits} that {@code limits} can never grant, since one of
   * them holds fewer; null if every one could. Such a request is refused without being counted: the
   * binding limit is the one with the fewest permits, and no wait grants it, so its {@code
   * retryAfter} and {@code resetAfter} are that limit's window and {@code remaining} is 0 (not
   * asked). A limiter with plans answers so for a key whose plan holds fewer permits than asked,
   * where throwing would let callers take a client's oversized request for an invalid key.
   */
  public static Decision neverGranted(List<Limit> limits, long permits) {
    Limit binding = null;
    for (Limit limit : limits) {
      if (binding == null || limit.permits() < binding.permits()) {
        binding = limit;
      }
    }
    if (binding == null || permits <= binding.permits()) {
      return null;
    }
    return Decision.refused(0, binding.window(), binding.window(), binding);
  }

  /** The largest of {@code limits}' permits: more than any window ever holds. */
  public static long largestPermits(List<Limit> limits) {
    long max = 0;
    for (Limit limit : limits) {
      max = Math.max(max, limit.permits());
    }
    return max;
  }

  /**
   * Checks the permits of a refund: positive and no more than {@code largest}, the largest limit's
   * permits, since no window ever holds more.
   *
   * @throws IllegalArgumentException naming the parameter and value otherwise
   */
  public static void checkRefund(long permits, long largest) {
    check(
        permits,
        largest,
        "permits of a refund must not exceed the largest limit, ",
        "no window holds more");
  }

  /**
   * Checks that {@code permits} is positive and no more than {@code largest}.
   *
   * @throws IllegalArgumentException naming the parameter and value otherwise
   */
  public static void check(long permits, long largest) {
    check(
        permits,
        largest,
        "permits must not exceed the smallest limit, ",
        "such a request could never be granted");
  }

  private static void check(long permits, long largest, String rule, String reason) {
    Checks.requirePositive(permits, "permits");
    if (permits > largest) {
      throw new IllegalArgumentException(rule + largest + ", since " + reason + "; was " + permits);
    }
  }
}
