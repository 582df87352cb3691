package io.slidingwindow;

import io.slidingwindow.internal.Checks;
import java.util.Map;

/**
 * Which {@link Plan} a key is on, for a keyed limiter built with {@link
 * KeyedRateLimiter.Builder#build(PlanResolver)} (or the Redis limiter's {@code
 * build(PlanResolver)}). A key on no plan (null) gets the limiter's default limits.
 *
 * <p>The in-process keyed limiter asks once per key and keeps the answer with the key's state,
 * under the key's lock: again only after {@link KeyedRateLimiter#refreshPlans()}, or once the key
 * has been evicted (its windows empty, so the answer carries no count). The Redis limiter asks on
 * every call, since it sends the limits with each call. So a resolver should be quick (a map
 * lookup, or a cache in front of a slower store), must not call the limiter that asks it, and may
 * be called by many threads at once. An exception it throws reaches the caller of the limiter, and
 * nothing is recorded.
 *
 * @param <K> the key type
 */
@FunctionalInterface
public interface PlanResolver<K> {

  /** The plan of {@code key} (never null), or null for the limiter's default limits. */
  Plan planOf(K key);

  /**
   * A resolver that looks keys up in {@code plans}, a copy taken now; a key not in it gets the
   * default limits.
   *
   * @throws IllegalArgumentException if {@code plans} is null or holds a null key or plan
   */
  static <K> PlanResolver<K> of(Map<K, Plan> plans) {
    Checks.requireNonNull(plans, "plans");
    Map<K, Plan> copy;
    try {
      copy = Map.copyOf(plans);
    } catch (NullPointerException e) {
      throw new IllegalArgumentException("plans must hold no null key or plan", e);
    }
    return copy::get;
  }
}
