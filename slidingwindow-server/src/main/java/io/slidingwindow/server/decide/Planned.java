package io.slidingwindow.server.decide;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.server.config.Rule;

/**
 * What {@link Decider} planned for each descriptor of a request before counting any: its rule, or
 * null (none matched, it was replaced, or it carries a limit of its own), and the limiter of its
 * own limit when it is counted by one, looked up once. Holds no array of limiters for a request
 * without such a descriptor. Used by one thread.
 */
final class Planned {

  /** Each descriptor's rule, or null. */
  final Rule[] rules;

  private KeyedRateLimiter<String>[] own;
  private boolean[] unusable;

  Planned(Rule[] rules) {
    this.rules = rules;
  }

  /** Descriptor {@code d} is counted by {@code limiter}, its own limit's. */
  @SuppressWarnings("unchecked") // an array of a generic type
  void own(int d, KeyedRateLimiter<String> limiter) {
    if (own == null) {
      own = (KeyedRateLimiter<String>[]) new KeyedRateLimiter<?>[rules.length];
    }
    own[d] = limiter;
  }

  /** Descriptor {@code d}'s own limit has no limiter: its domain holds its most such limits. */
  void markUnusable(int d) {
    if (unusable == null) {
      unusable = new boolean[rules.length];
    }
    unusable[d] = true;
  }

  /** Whether descriptor {@code d}'s own limit has no limiter, to be answered OVER_LIMIT. */
  boolean unusable(int d) {
    return unusable != null && unusable[d];
  }

  /** The limiter of descriptor {@code d}'s own limit, or null. */
  KeyedRateLimiter<String> own(int d) {
    return own == null ? null : own[d];
  }
}
