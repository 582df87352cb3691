package io.slidingwindow.redis;

import io.slidingwindow.KeyedRateLimiter;

/**
 * What a {@link RedisRateLimiter} answers when Redis does not: an error, no answer within the
 * command timeout, or a circuit breaker that is open after repeated failures.
 *
 * <p>No Redis exception ever escapes a limiter call: the policy decides instead. {@link
 * #failOpen()} grants, {@link #failClosed()} refuses, {@link #fallbackTo} asks an in-process
 * limiter (which then limits each instance on its own; give it a share of the global limit).
 * Immutable and thread-safe.
 */
public final class FailurePolicy {

  enum Kind {
    OPEN,
    CLOSED,
    FALLBACK
  }

  private static final FailurePolicy OPEN = new FailurePolicy(Kind.OPEN, null);
  private static final FailurePolicy CLOSED = new FailurePolicy(Kind.CLOSED, null);

  private final Kind kind;
  private final KeyedRateLimiter<String> fallback;

  private FailurePolicy(Kind kind, KeyedRateLimiter<String> fallback) {
    this.kind = kind;
    this.fallback = fallback;
  }

  /**
   * Grants every request while Redis fails; the decision says {@code remaining = 0}, since the true
   * figure is unknown.
   */
  public static FailurePolicy failOpen() {
    return OPEN;
  }

  /**
   * Refuses every request while Redis fails, with a {@code retryAfter} of the time until the
   * breaker next probes Redis (at least one millisecond).
   */
  public static FailurePolicy failClosed() {
    return CLOSED;
  }

  /**
   * Asks {@code limiter}, an in-process limiter, while Redis fails.
   *
   * @throws IllegalArgumentException if {@code limiter} is null
   */
  public static FailurePolicy fallbackTo(KeyedRateLimiter<String> limiter) {
    if (limiter == null) {
      throw new IllegalArgumentException("limiter must not be null");
    }
    return new FailurePolicy(Kind.FALLBACK, limiter);
  }

  Kind kind() {
    return kind;
  }

  KeyedRateLimiter<String> fallback() {
    return fallback;
  }

  @Override
  public String toString() {
    return kind == Kind.FALLBACK
        ? "fallbackTo(" + fallback + ")"
        : kind == Kind.OPEN ? "failOpen" : "failClosed";
  }
}
