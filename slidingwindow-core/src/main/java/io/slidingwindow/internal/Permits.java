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

  /**
   * Checks that {@code permits} is positive and no more than {@code largest}.
   *
   * @throws IllegalArgumentException naming the parameter and value otherwise
   */
  public static void check(long permits, long largest) {
    Checks.requirePositive(permits, "permits");
    if (permits > largest) {
      throw new IllegalArgumentException(
          "permits must not exceed the smallest limit, "
              + largest
              + ", since such a request could never be granted; was "
              + permits);
    }
  }
}
