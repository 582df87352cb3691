package io.slidingwindow;

import io.slidingwindow.internal.Checks;
import java.time.Duration;

/**
 * The outcome of one request to a limiter, with what a caller needs to answer or to retry.
 *
 * <p>When the limiter holds several limits, the figures describe the one that bound: for a refusal
 * the limit that keeps the request waiting longest, for a grant the limit with the fewest permits
 * left.
 *
 * @param allowed whether the permits were granted (and counted)
 * @param remaining how many permits the binding limit would still grant now, after this decision;
 *     never negative
 * @param retryAfter zero when allowed; otherwise how long from now until the same request would be
 *     granted if no other request arrives meanwhile. Never early: retrying sooner is refused. (The
 *     one exception is a keyed limiter refusing a new key for want of room, see {@link
 *     KeyOverflow#REFUSE}, whose retryAfter is a hint.)
 * @param resetAfter how long from now until every permit the binding limit counts now has left its
 *     window, so that its full capacity is available again; zero when it counts none
 * @param limit the binding limit
 */
public record Decision(
    boolean allowed, long remaining, Duration retryAfter, Duration resetAfter, Limit limit) {

  /**
   * Checks the invariants.
   *
   * @throws IllegalArgumentException if {@code remaining} is negative, a duration is null or
   *     negative, {@code limit} is null, or an allowed decision has a non-zero {@code retryAfter}
   */
  public Decision {
    Checks.requireNonNegative(remaining, "remaining");
    Checks.requireArgument(
        retryAfter != null && !retryAfter.isNegative(),
        "retryAfter",
        "be zero or positive",
        retryAfter);
    Checks.requireArgument(
        resetAfter != null && !resetAfter.isNegative(),
        "resetAfter",
        "be zero or positive",
        resetAfter);
    Checks.requireNonNull(limit, "limit");
    Checks.requireArgument(
        !allowed || retryAfter.isZero(), "retryAfter", "be zero when allowed", retryAfter);
  }
}
