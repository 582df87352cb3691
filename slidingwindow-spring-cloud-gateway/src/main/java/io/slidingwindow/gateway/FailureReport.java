package io.slidingwindow.gateway;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says when a route's decisions are not the limiter's own, so that failing open is never silent.
 *
 * <p>Four cases: a decision that failed or timed out, answered by the gateway's failure policy
 * (counter {@value #FAILURES}, tags {@code route}, {@code cause} = {@code timeout} or {@code
 * error}, {@code answer} = {@code allowed} or {@code refused}); a decision the limiter made by its
 * own failure policy because its Redis is unreachable (counter {@value #DEGRADED}, tag {@code
 * route}); a key the limiter rejected, refused (counter {@value #FAILURES} with {@code cause} =
 * {@code invalid-key}, logged at WARN once per route); and a key the limiter had no room to track
 * (counter {@value #KEY_OVERFLOWS}, tag {@code route}, logged at WARN once per route). The first of
 * a run of failures or degraded decisions is logged at WARN with the route and the cause, the
 * return to normal at INFO; in between, DEBUG. Counters only when a meter registry is given.
 * Thread-safe.
 */
final class FailureReport {

  /** Decisions answered by the gateway's failure policy. */
  static final String FAILURES = "slidingwindow.gateway.failures";

  /** Decisions a limiter made by its own failure policy while its backend was unreachable. */
  static final String DEGRADED = "slidingwindow.gateway.degraded";

  /** Requests whose key a route's limiter had no room to track. */
  static final String KEY_OVERFLOWS = "slidingwindow.gateway.key.overflows";

  private static final Logger LOG = LoggerFactory.getLogger(SlidingWindowRateLimiter.class);

  private final MeterRegistry registry;
  private final Set<String> failing = ConcurrentHashMap.newKeySet();
  private final Set<String> degraded = ConcurrentHashMap.newKeySet();
  private final Set<String> warnedOnce = ConcurrentHashMap.newKeySet();

  /** Reports into {@code registry}, or to the log only if it is null. */
  FailureReport(MeterRegistry registry) {
    this.registry = registry;
  }

  /**
   * A decision of {@code routeId} failed with {@code cause}; the policy answered {@code allowed}.
   */
  void failed(String routeId, Throwable cause, boolean allowed) {
    String kind = cause instanceof TimeoutException ? "timeout" : "error";
    String answer = allowed ? "allowed" : "refused";
    countFailure(routeId, kind, answer);
    if (failing.add(routeId)) {
      LOG.warn(
          "slidingwindow: route {}: rate limit decision failed ({}), request {} by the failure"
              + " policy until decisions succeed again",
          routeId,
          cause.toString(),
          answer,
          cause instanceof TimeoutException ? null : cause);
    } else {
      LOG.debug("slidingwindow: route {}: decision failed ({}), {}", routeId, cause, answer);
    }
  }

  /** The limiter of {@code routeId} rejected a key as invalid; the request was refused. */
  void invalidKey(String routeId, IllegalArgumentException cause) {
    countFailure(routeId, "invalid-key", "refused");
    if (warnedOnce.add(routeId + "\u0000invalid")) {
      LOG.warn(
          "slidingwindow: route {}: the limiter rejected a request's key ({}); such requests are"
              + " refused, never granted by the failure policy. Logged once per route.",
          routeId,
          cause.getMessage());
    } else {
      LOG.debug("slidingwindow: route {}: key rejected: {}", routeId, cause.getMessage());
    }
  }

  /** The limiter of {@code routeId} had no room to track a key; its overflow policy answered. */
  void keyOverflow(String routeId) {
    if (registry != null) {
      Counter.builder(KEY_OVERFLOWS)
          .description("Gateway requests whose key a route's limiter had no room to track")
          .tag("route", routeId)
          .register(registry)
          .increment();
    }
    if (warnedOnce.add(routeId + "\u0000overflow")) {
      LOG.warn(
          "slidingwindow: route {}: the limiter tracks its most keys"
              + " (slidingwindow.gateway.max-keys-per-route) with live windows; new keys are"
              + " refused until keys expire. Key on checked API keys or client addresses"
              + " (GatewayKeys). Logged once per route.",
          routeId);
    }
  }

  private void countFailure(String routeId, String kind, String answer) {
    if (registry != null) {
      Counter.builder(FAILURES)
          .description("Rate limit decisions answered by the gateway's failure policy")
          .tag("route", routeId)
          .tag("cause", kind)
          .tag("answer", answer)
          .register(registry)
          .increment();
    }
  }

  /** A decision of {@code routeId} came from its limiter; {@code degraded} if by its policy. */
  void decided(String routeId, boolean degradedNow) {
    if (failing.remove(routeId)) {
      LOG.info("slidingwindow: route {}: rate limit decisions succeed again", routeId);
    }
    if (degradedNow) {
      if (registry != null) {
        Counter.builder(DEGRADED)
            .description(
                "Rate limit decisions made by the limiter's failure policy, its backend down")
            .tag("route", routeId)
            .register(registry)
            .increment();
      }
      if (degraded.add(routeId)) {
        LOG.warn(
            "slidingwindow: route {}: the limiter's Redis is unreachable, its failure policy"
                + " (slidingwindow.redis.on-failure) decides until it answers again",
            routeId);
      }
    } else if (degraded.remove(routeId)) {
      LOG.info("slidingwindow: route {}: the limiter's Redis answers again", routeId);
    }
  }
}
