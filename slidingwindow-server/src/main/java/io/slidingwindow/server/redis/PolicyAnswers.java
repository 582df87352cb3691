package io.slidingwindow.server.redis;

import io.slidingwindow.Decision;
import io.slidingwindow.FailurePolicy;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.server.decide.ServiceHealth;
import java.time.Duration;
import java.util.List;

/**
 * What a rule on Redis answers while Redis fails, by the domain's {@link FailurePolicy}, counting
 * each such decision in {@link ServiceHealth#backendFailed()}: {@link FailurePolicy#ALLOW} grants
 * (remaining 0, since the true figure is unknown), {@link FailurePolicy#REFUSE} refuses until the
 * circuit breaker next tries Redis, {@link FailurePolicy#LOCAL} asks an in-memory limiter with the
 * same limits. The Redis limiter calls it as its fallback. Thread-safe.
 */
final class PolicyAnswers implements KeyedRateLimiter<String> {

  private final List<Limit> limits;
  private final FailurePolicy policy;
  private final KeyedRateLimiter<String> local;
  private final Duration retryAfter;
  private final ServiceHealth health;
  private final Limit smallest;
  private final Duration longest;

  /**
   * @param local the in-memory limiter of {@link FailurePolicy#LOCAL}, else unused
   * @param retryAfter what a refusal of {@link FailurePolicy#REFUSE} says: the breaker's open time
   */
  PolicyAnswers(
      List<Limit> limits,
      FailurePolicy policy,
      KeyedRateLimiter<String> local,
      Duration retryAfter,
      ServiceHealth health) {
    this.limits = List.copyOf(limits);
    this.policy = policy;
    this.local = local;
    this.retryAfter = retryAfter;
    this.health = health;
    Limit least = limits.get(0);
    Duration window = limits.get(0).window();
    for (Limit limit : limits) {
      if (limit.permits() < least.permits()) {
        least = limit;
      }
      if (limit.window().compareTo(window) > 0) {
        window = limit.window();
      }
    }
    this.smallest = least;
    this.longest = window;
  }

  @Override
  public Decision decide(String key, long permits) {
    health.backendFailed();
    return switch (policy) {
      case ALLOW -> Decision.granted(0, Duration.ZERO, smallest);
      case REFUSE -> Decision.refused(0, retryAfter, longest, smallest);
      case LOCAL -> local.decide(key, permits);
    };
  }

  @Override
  public boolean tryAcquire(String key, long permits) {
    return decide(key, permits).allowed();
  }

  @Override
  public List<Limit> limits() {
    return limits;
  }

  @Override
  public String toString() {
    return "failure policy " + policy;
  }
}
