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

  /** The limiter of descriptor {@code d}'s own limit, or null. */
  KeyedRateLimiter<String> own(int d) {
    return own == null ? null : own[d];
  }
}
