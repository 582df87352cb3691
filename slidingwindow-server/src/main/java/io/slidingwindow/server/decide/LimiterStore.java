package io.slidingwindow.server.decide;

import io.slidingwindow.FailurePolicy;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.PlanResolver;
import java.util.List;

/**
 * Where the service's counts live: builds the keyed limiter of each rule. {@code toString()} says
 * which store, without secrets. Thread-safe.
 */
public interface LimiterStore extends AutoCloseable {

  /**
   * Builds a limiter of {@code limits}, whose ids get the limits of their plan instead when {@code
   * plans} gives them one.
   *
   * @param failurePolicy what answers while a shared store fails (in memory: unused)
   * @param maxKeys the most keys tracked at once in memory
   * @param plans the plans of ids, or null for none
   * @throws IllegalArgumentException if the limits cannot be counted by this store
   */
  KeyedRateLimiter<String> create(
      List<Limit> limits, FailurePolicy failurePolicy, long maxKeys, PlanResolver<String> plans);

  /**
   * Whether counts live in this process: then every limiter answers at once, and each rule's
   * limiter has keys of its own; else all rules share one key space, and keys name their rule.
   */
  boolean inMemory();

  /** Releases the store's connections; idempotent. */
  @Override
  void close();
}
