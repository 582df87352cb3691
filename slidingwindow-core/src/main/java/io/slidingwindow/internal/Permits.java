package io.slidingwindow.internal;

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
