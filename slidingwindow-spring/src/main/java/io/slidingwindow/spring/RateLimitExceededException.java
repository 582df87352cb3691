package io.slidingwindow.spring;

import io.slidingwindow.Decision;
import java.time.Duration;

/**
 * The refusal of a call to a bean method limited by {@link RateLimit}: thrown by a synchronous
 * method, the error of a refused {@code CompletionStage}, {@code Mono} or {@code Flux}, and the
 * last argument of the method's {@link RateLimit#fallbackMethod() fallback}. It carries the rule's
 * name and the limiter's {@link Decision}, whose {@link Decision#retryAfter()} is exact: the
 * earliest time from the decision at which the same call would be granted if nothing else arrives.
 * It has no stack trace (a refusal is an answer, not a fault, and can come at the rate of an
 * attack).
 */
public final class RateLimitExceededException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String rule;
  private final transient Decision decision;

  /**
   * The refusal of {@code rule} with its {@code decision}.
   *
   * @throws IllegalArgumentException if {@code rule} or {@code decision} is null, or the decision
   *     allowed the call
   */
  public RateLimitExceededException(String rule, Decision decision) {
    super(message(rule, decision), null, false, false);
    this.rule = rule;
    this.decision = decision;
  }

  private static String message(String rule, Decision decision) {
    if (rule == null || decision == null || decision.allowed()) {
      throw new IllegalArgumentException(
          "rule and a refusing decision are required, were " + rule + " and " + decision);
    }
    return "rate limit '" + rule + "' refused the call; retry after " + decision.retryAfter();
  }

  /** The name of the rule that refused, as in metrics. */
  public String rule() {
    return rule;
  }

  /** The limiter's decision: the limit that refused, what remains and when to retry. */
  public Decision decision() {
    return decision;
  }

  /** How long to wait before the same call would be granted, exact (never early). */
  public Duration retryAfter() {
    return decision.retryAfter();
  }
}
