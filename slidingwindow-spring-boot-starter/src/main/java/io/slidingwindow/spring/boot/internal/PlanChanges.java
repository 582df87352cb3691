package io.slidingwindow.spring.boot.internal;

import io.slidingwindow.DurationText;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Plan;
import java.time.Duration;
import java.util.List;
import java.util.StringJoiner;

/**
 * Which limiters take a run-time change of a plan's limits, and which limits they can enforce.
 *
 * <p>The in-process keyed limiter keeps each key's plan with its state and asks again after {@link
 * KeyedRateLimiter#refreshPlans()}, carrying the key's counts over; the Redis limiter asks on every
 * call (and passes the refresh on to its in-process fallback). Any other limiter, from an
 * application's own {@code RateLimiterFactory}, may keep plans where a change cannot reach them, so
 * it is refused. For the rules in service and the dashboard's plan operations.
 */
public final class PlanChanges {

  private static final String REDIS_LIMITER = "io.slidingwindow.redis.RedisRateLimiter";

  /** The class of the in-process keyed limiter, with or without plans. */
  private static final Class<?> IN_PROCESS =
      KeyedRateLimiter.builder().limit(Limit.of(1, Duration.ofSeconds(1))).build().getClass();

  private PlanChanges() {}

  /** Whether {@code limiter} takes a change of a plan's limits at once, keeping the counts. */
  public static boolean takesChanges(KeyedRateLimiter<?> limiter) {
    return limiter.getClass() == IN_PROCESS || isRedis(limiter);
  }

  /**
   * Checks that {@code limiter} can enforce {@code limits}.
   *
   * @throws IllegalArgumentException naming {@code limits[i]} and the bad value
   */
  public static void check(KeyedRateLimiter<?> limiter, List<Limit> limits) {
    if (limits.isEmpty()) {
      throw new IllegalArgumentException("limits: a plan needs at least one limit, was []");
    }
    boolean redis = isRedis(limiter);
    for (int i = 0; i < limits.size(); i++) {
      Limit limit = limits.get(i);
      String at = "limits[" + i + "]";
      if (redis && !limit.isCalendar() && limit.windowNanos() % 1000 != 0) {
        throw new IllegalArgumentException(
            at + ".window: must be whole microseconds on Redis, was " + limit.window());
      }
      if (redis && !limit.isCalendar() && !limit.isExact() && limit.precisionNanos() % 1000 != 0) {
        throw new IllegalArgumentException(
            at + ".precision: must be whole microseconds on Redis, was " + limit.precision());
      }
      try {
        KeyedRateLimiter.builder().limit(limit).build();
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(at + ": " + e.getMessage(), e);
      }
    }
    try {
      KeyedRateLimiter.builder().limits(limits).build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("limits: " + e.getMessage(), e);
    }
  }

  /**
   * The limits of {@code plan} as text, such as {@code [5/10s, 100/1h]}, each with its precision
   * where it is not the default ({@code 5/10s precision 1s}).
   */
  public static String text(Plan plan) {
    StringJoiner text = new StringJoiner(", ", "[", "]");
    for (Limit limit : plan.limits()) {
      boolean usual =
          limit.isCalendar()
              || limit.isExact()
              || Limit.of(limit.permits(), limit.window()).precision().equals(limit.precision());
      text.add(
          limit.toText()
              + (limit.isExact() && !limit.isCalendar() ? " exact" : "")
              + (usual ? "" : " precision " + DurationText.format(limit.precision())));
    }
    return text.toString();
  }

  private static boolean isRedis(KeyedRateLimiter<?> limiter) {
    return limiter.getClass().getName().equals(REDIS_LIMITER);
  }
}
