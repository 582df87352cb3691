package io.slidingwindow;

/**
 * What a limiter whose state lives elsewhere (Redis, a remote service) answers while that store
 * fails: an error, no answer within the deadline, or a circuit breaker that is open after repeated
 * failures. The one failure vocabulary of the library, the Spring starter, the gateway and the rate
 * limit service; each takes {@link #LOCAL} unless told otherwise.
 *
 * <p>A failure of the store is never the caller's fault and never reaches the caller as an
 * exception. A bad argument (a null key, a weight of zero) is the caller's fault: it is thrown at
 * once, whatever the policy, and no policy turns it into a grant.
 */
public enum FailurePolicy {

  /**
   * Decide in this process's memory, with the same limits, until the store answers again (the
   * default). Each instance then limits on its own, so a fleet of {@code n} instances grants up to
   * {@code n} times a limit while the store is down; give the fallback a share of the limit where
   * that matters.
   */
  LOCAL,

  /**
   * Grant every request: availability over the limit. A decision made so says {@code remaining =
   * 0}, since the true figure is unknown.
   */
  ALLOW,

  /** Refuse every request: the limit over availability. */
  REFUSE;

  /** The policy that applies when none is set: {@link #LOCAL}. */
  public static final FailurePolicy DEFAULT = LOCAL;
}
