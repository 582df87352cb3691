package io.slidingwindow;

import io.slidingwindow.internal.Checks;
import java.time.Duration;

/**
 * The outcome of one request to a limiter, with what a caller needs to answer or to retry. Made by
 * {@link #granted} or {@link #refused}, so that a call site says which it is.
 *
 * <p>When the limiter holds several limits, the figures describe the one that bound: for a refusal
 * the limit that keeps the request waiting longest, for a grant the limit with the fewest permits
 * left.
 *
 * <p>Instances are immutable and thread-safe; two decisions are equal when all their figures are.
 */
public final class Decision {

  private final boolean allowed;
  private final long remaining;
  private final Duration retryAfter;
  private final Duration resetAfter;
  private final Limit limit;
  private final boolean keyOverflow;

  private Decision(
      boolean allowed,
      long remaining,
      Duration retryAfter,
      Duration resetAfter,
      Limit limit,
      boolean keyOverflow) {
    this.allowed = allowed;
    this.keyOverflow = keyOverflow;
    this.remaining = Checks.requireNonNegative(remaining, "remaining");
    this.retryAfter = checkDuration(retryAfter, "retryAfter");
    this.resetAfter = checkDuration(resetAfter, "resetAfter");
    this.limit = Checks.requireNonNull(limit, "limit");
  }

  /**
   * A grant: the permits were granted and counted.
   *
   * @param remaining how many permits the binding limit would still grant now, after this grant
   * @param resetAfter how long until every permit the binding limit counts has left its window
   * @param limit the binding limit: the one with the fewest permits left
   * @throws IllegalArgumentException if {@code remaining} is negative, {@code resetAfter} is null
   *     or negative, or {@code limit} is null
   */
  public static Decision granted(long remaining, Duration resetAfter, Limit limit) {
    return new Decision(true, remaining, Duration.ZERO, resetAfter, limit, false);
  }

  /**
   * A refusal: nothing was granted.
   *
   * @param remaining how many permits the binding limit would still grant now (fewer than asked)
   * @param retryAfter how long until the same request would be granted if nothing else arrives
   * @param resetAfter how long until every permit the binding limit counts has left its window
   * @param limit the binding limit: the one that keeps the request waiting longest
   * @throws IllegalArgumentException if {@code remaining} is negative, a duration is null or
   *     negative, or {@code limit} is null
   */
  public static Decision refused(
      long remaining, Duration retryAfter, Duration resetAfter, Limit limit) {
    return new Decision(false, remaining, retryAfter, resetAfter, limit, false);
  }

  /**
   * The answer of a keyed limiter that found no room to track a new key (see {@link KeyOverflow}):
   * the policy's, not the key's windows'. Its {@code remaining} is 0, since nothing is known of the
   * key; a refusal's {@code retryAfter} and {@code resetAfter} are {@code wait}, a hint.
   *
   * @param allowed whether the policy grants the request (uncounted) or refuses it
   * @param wait the hint of a refusal (ignored for a grant)
   * @param limit the limit reported, the longest
   * @throws IllegalArgumentException if {@code wait} is null or negative, or {@code limit} is null
   */
  public static Decision keyOverflow(boolean allowed, Duration wait, Limit limit) {
    return allowed
        ? new Decision(true, 0, Duration.ZERO, Duration.ZERO, limit, true)
        : new Decision(false, 0, wait, wait, limit, true);
  }

  private static Duration checkDuration(Duration duration, String name) {
    Checks.requireArgument(
        duration != null && !duration.isNegative(), name, "be zero or positive", duration);
    return duration;
  }

  /** Whether the permits were granted (and counted). */
  public boolean allowed() {
    return allowed;
  }

  /**
   * How many permits the binding limit would still grant now, after this decision; never negative.
   */
  public long remaining() {
    return remaining;
  }

  /**
   * Zero when allowed; otherwise how long from now until the same request would be granted if no
   * other request arrives meanwhile. Never early: retrying sooner is refused. (The one exception is
   * a keyed limiter refusing a new key for want of room, {@link #isKeyOverflow()}, whose retryAfter
   * is a hint.)
   */
  public Duration retryAfter() {
    return retryAfter;
  }

  /**
   * How long from now until every permit the binding limit counts now has left its window, so that
   * its full capacity is available again; zero when it counts none.
   */
  public Duration resetAfter() {
    return resetAfter;
  }

  /** The binding limit. */
  public Limit limit() {
    return limit;
  }

  /**
   * Whether this is a keyed limiter's answer for a new key it had no room to track ({@link
   * #keyOverflow}), decided by its {@link KeyOverflow} policy rather than by the key's windows.
   */
  public boolean isKeyOverflow() {
    return keyOverflow;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof Decision d)) {
      return false;
    }
    return allowed == d.allowed
        && remaining == d.remaining
        && retryAfter.equals(d.retryAfter)
        && resetAfter.equals(d.resetAfter)
        && limit.equals(d.limit)
        && keyOverflow == d.keyOverflow;
  }

  @Override
  public int hashCode() {
    int h = Boolean.hashCode(allowed);
    h = h * 31 + Long.hashCode(remaining);
    h = h * 31 + retryAfter.hashCode();
    h = h * 31 + resetAfter.hashCode();
    h = h * 31 + limit.hashCode();
    return h * 31 + Boolean.hashCode(keyOverflow);
  }

  /**
   * For example {@code "Decision[allowed=false, remaining=0, retryAfter=PT0.5S, resetAfter=PT1S,
   * limit=10 per PT1S (precision PT0.001S)]"}.
   */
  @Override
  public String toString() {
    return "Decision[allowed="
        + allowed
        + ", remaining="
        + remaining
        + ", retryAfter="
        + retryAfter
        + ", resetAfter="
        + resetAfter
        + ", limit="
        + limit
        + (keyOverflow ? ", keyOverflow" : "")
        + "]";
  }
}
