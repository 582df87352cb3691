package io.slidingwindow;

import io.slidingwindow.internal.Checks;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * What is left of a key's limits, read without taking anything ({@link KeyedRateLimiter#peek}) or
 * after a refund: one {@link Usage} per limit, in the order of the key's limits. Immutable and
 * thread-safe.
 */
public final class Quota {

  /**
   * One limit of a key as of the moment it was read.
   *
   * @param limit the limit
   * @param used the permits it counts now (for a sliding window at a coarse precision, every permit
   *     of a bucket that still counts, as a request would see it)
   * @param remaining how many more it would grant now: {@code permits - used}, never negative
   * @param resetAfter how long until no permit it counts now counts any more; zero if none
   */
  public record Usage(Limit limit, long used, long remaining, Duration resetAfter) {

    /**
     * Checks the figures.
     *
     * @throws IllegalArgumentException if {@code limit} or {@code resetAfter} is null, or a figure
     *     is negative
     */
    public Usage {
      Checks.requireNonNull(limit, "limit");
      Checks.requireNonNegative(used, "used");
      Checks.requireNonNegative(remaining, "remaining");
      Checks.requireArgument(
          resetAfter != null && !resetAfter.isNegative(),
          "resetAfter",
          "be zero or positive",
          resetAfter);
    }
  }

  private final String plan;
  private final List<Usage> limits;

  private Quota(String plan, List<Usage> limits) {
    this.plan = plan;
    this.limits = limits;
  }

  /**
   * The quota of a key on {@code plan} (null for the default limits) whose limits stand as {@code
   * limits} say.
   *
   * @throws IllegalArgumentException if {@code limits} is null, empty or holds a null
   */
  public static Quota of(String plan, List<Usage> limits) {
    return new Quota(plan, List.copyOf(Checks.requireElements(limits, "limits")));
  }

  /** The name of the key's plan; empty when it has the limiter's default limits. */
  public Optional<String> plan() {
    return Optional.ofNullable(plan);
  }

  /** Each limit of the key, in the order of its limits. */
  public List<Usage> limits() {
    return limits;
  }

  /** The fewest permits any limit would still grant now: what a request could take at most. */
  public long remaining() {
    long least = Long.MAX_VALUE;
    for (Usage usage : limits) {
      least = Math.min(least, usage.remaining());
    }
    return least;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Quota other
        && java.util.Objects.equals(other.plan, plan)
        && other.limits.equals(limits);
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hashCode(plan) * 31 + limits.hashCode();
  }

  /** For example {@code "Quota[plan=free, limits=[Usage[...]]]"}. */
  @Override
  public String toString() {
    return "Quota[plan=" + plan + ", limits=" + limits + "]";
  }
}
