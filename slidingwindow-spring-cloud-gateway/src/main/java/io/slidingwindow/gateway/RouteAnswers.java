package io.slidingwindow.gateway;

import io.slidingwindow.Decision;
import io.slidingwindow.FailurePolicy;
import io.slidingwindow.KeyedRateLimiter;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter.Response;

/**
 * What the gateway answers for a request: the limiter's decision with its headers, or, when the
 * decision failed, the failure policy's answer; each counted and logged by the report. Thread-safe.
 */
final class RouteAnswers {

  private final FailurePolicy onFailure;
  private final boolean headers;
  private final FailureReport report;

  RouteAnswers(FailurePolicy onFailure, boolean headers, FailureReport report) {
    this.onFailure = onFailure;
    this.headers = headers;
    this.report = report;
  }

  /** The answer to the route limiter's {@code decision} on {@code key}. */
  Response decided(String routeId, RouteLimiter route, String key, Decision decision) {
    report.decided(routeId, RedisBreakers.open(route.limiter));
    if (decision.isKeyOverflow()) {
      report.keyOverflow(routeId);
    }
    return new Response(
        decision.allowed(), headersOf(routeId, route, route.limiter, key, decision));
  }

  /**
   * The headers of {@code decision} on {@code key} by {@code limiter}: a key on a plan (as the
   * limiter tells it) is told its plan's binding limit, named by the route, never the route's
   * default limits, even where they are equal.
   */
  private Map<String, String> headersOf(
      String routeId,
      RouteLimiter route,
      KeyedRateLimiter<String> limiter,
      String key,
      Decision decision) {
    if (headers) {
      return GatewayHeaders.of(routeId, route, limiter, key, decision);
    }
    return decision.allowed() ? Map.of() : GatewayHeaders.retryAfterOnly(decision);
  }

  /**
   * The answer to a decision of {@code key} that failed with {@code error}: a refusal for a key the
   * limiter rejected (never a grant), else the failure policy's.
   */
  Response failed(String routeId, RouteLimiter route, String key, Throwable error) {
    Throwable cause = unwrap(error);
    if (cause instanceof IllegalArgumentException invalid) {
      report.invalidKey(routeId, invalid);
      return new Response(false, GatewayHeaders.retryAfterOnePolicy());
    }
    Response answer =
        switch (onFailure) {
          case ALLOW -> new Response(true, Map.of());
          case REFUSE -> new Response(false, GatewayHeaders.retryAfterOnePolicy());
          case LOCAL -> decideLocally(routeId, route, key);
        };
    report.failed(routeId, cause, answer.isAllowed());
    return answer;
  }

  /** The route's in-memory decision, with its plans, as {@link FailurePolicy#LOCAL} makes it. */
  private Response decideLocally(String routeId, RouteLimiter route, String key) {
    try {
      KeyedRateLimiter<String> local = route.local();
      Decision decision = local.decide(key, 1);
      return new Response(decision.allowed(), headersOf(routeId, route, local, key, decision));
    } catch (RuntimeException e) {
      return new Response(false, GatewayHeaders.retryAfterOnePolicy());
    }
  }

  private static Throwable unwrap(Throwable error) {
    Throwable cause = error;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }
}
