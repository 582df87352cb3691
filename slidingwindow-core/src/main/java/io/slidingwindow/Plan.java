package io.slidingwindow;

import io.slidingwindow.internal.Checks;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * A named set of limits, such as {@code free} at 5 per 10 s or {@code pro} at 20 per 10 s and 10
 * 000 per calendar month: what a {@link PlanResolver} gives a key of a keyed limiter instead of the
 * limiter's default limits. Immutable and thread-safe; two plans are equal when their names and
 * limits are.
 *
 * <p><b>When a key's limits change</b> (its plan's limits are changed at run time, or it moves to
 * another plan), its recorded permits are carried over by one rule, limit by limit:
 *
 * <ol>
 *   <li><b>The same window is kept as it is.</b> A new limit with the same window and precision as
 *       an old one (or the same calendar period and zone, {@link Limit#sameWindow}) keeps that
 *       limit's recorded permits, whatever its {@code permits}: raising or lowering a plan's
 *       permits, or moving a key from {@code free} to {@code pro} on the same windows, forgets
 *       nothing and adds nothing. When the old window holds more than the new limit allows, all are
 *       kept: the window grants nothing until enough have left, and a later rise of the limit still
 *       counts them, so lowering a limit and raising it again never grants a permit twice.
 *   <li><b>A new window is seeded conservatively</b>, in process: a limit with no such match starts
 *       with the permits of the old limits' longest sliding window that it counts now, each as if
 *       recorded at the latest instant of its bucket (no later than the change), so that none
 *       leaves sooner than it truly would. When that old window is at least as long as the new one,
 *       the new window knows every permit granted in it before the change; a longer new window
 *       knows those of the old longest window only, since nothing older was kept. A calendar quota
 *       counts those whose instant falls in its current period. The Redis limiter starts such a
 *       window empty: Redis keeps no record of an id's earlier limits (see {@code docs/plans.md}).
 *   <li><b>A window no new limit has is forgotten.</b>
 * </ol>
 *
 * <p>The guarantee across a change. For every limit {@code (N, W)} a key has at the time of a grant
 * {@code g}, the permits granted in {@code (g - W, g]} that the limit's window holds (by the rule
 * above) sum to at most {@code N}, this grant included. While a key's limits do not change that is
 * the usual guarantee (at most {@code N} in any interval of length {@code W}); across a change, a
 * kept or seeded window counts every permit granted before the change inside its window (up to the
 * old longest window), so no grant after the change takes a window past its new {@code N}. Permits
 * granted before the change under a larger {@code N} stay granted: an interval of length {@code W}
 * that spans changes holds at most the largest {@code N} the key's limit of window {@code W} had
 * during it.
 */
public final class Plan {

  private final String name;
  private final List<Limit> limits;

  private Plan(String name, List<Limit> limits) {
    this.name = name;
    this.limits = limits;
  }

  /**
   * A plan named {@code name} with {@code limits}; a request of a key on it is granted only if
   * every limit allows it.
   *
   * @throws IllegalArgumentException if {@code name} is null or blank, or {@code limits} is null,
   *     empty or holds a null
   */
  public static Plan of(String name, Collection<Limit> limits) {
    Checks.requireArgument(name != null && !name.isBlank(), "name", "not be blank", name);
    return new Plan(name, List.copyOf(Checks.requireElements(limits, "limits")));
  }

  /**
   * A plan named {@code name} with {@code limits}.
   *
   * @throws IllegalArgumentException as {@link #of(String, Collection)}
   */
  public static Plan of(String name, Limit... limits) {
    return of(name, limits == null ? null : Arrays.asList(limits));
  }

  /** The plan's name. */
  public String name() {
    return name;
  }

  /** The plan's limits, in the order given. */
  public List<Limit> limits() {
    return limits;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Plan other && other.name.equals(name) && other.limits.equals(limits);
  }

  @Override
  public int hashCode() {
    return name.hashCode() * 31 + limits.hashCode();
  }

  /** For example {@code "Plan[free: 5/10s]"}. */
  @Override
  public String toString() {
    StringBuilder text = new StringBuilder("Plan[").append(name).append(':');
    for (Limit limit : limits) {
      text.append(' ').append(limit.toText());
    }
    return text.append(']').toString();
  }
}
