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
 * <p>Two cases: a decision that failed or timed out, answered by the gateway's failure policy
 * (counter {@value #FAILURES}, tags {@code route}, {@code cause} = {@code timeout} or {@code
 * error}, {@code answer} = {@code allowed} or {@code refused}); and a decision the limiter made by
 * its own failure policy because its Redis is unreachable (counter {@value #DEGRADED}, tag {@code
 * route}). The first of a run of either is logged at WARN with the route and the cause, the return
 * to normal at INFO; in between, DEBUG. Counters only when a meter registry is given. Thread-safe.
 */
final class FailureReport {

  /** Decisions answered by the gateway's failure policy. */
  static final String FAILURES = "slidingwindow.gateway.failures";

  /** Decisions a limiter made by its own failure policy while its backend was unreachable. */
  static final String DEGRADED = "slidingwindow.gateway.degraded";

  private static final Logger LOG = LoggerFactory.getLogger(SlidingWindowRateLimiter.class);

  private final MeterRegistry registry;
  private final Set<String> failing = ConcurrentHashMap.newKeySet();
  private final Set<String> degraded = ConcurrentHashMap.newKeySet();

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
    if (registry != null) {
      Counter.builder(FAILURES)
          .description("Rate limit decisions answered by the gateway's failure policy")
          .tag("route", routeId)
          .tag("cause", kind)
          .tag("answer", answer)
          .register(registry)
          .increment();
    }
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
