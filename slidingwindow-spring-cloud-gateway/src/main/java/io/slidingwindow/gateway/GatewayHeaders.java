package io.slidingwindow.gateway;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Plan;
import io.slidingwindow.http.QuotaHeaders;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The response headers of one route's decision, assembled by {@link QuotaHeaders}: draft-10 {@code
 * RateLimit-Policy} and {@code RateLimit}, and on a refusal {@code Retry-After} in whole seconds
 * rounded up. Stateless.
 */
final class GatewayHeaders {

  /** The header that tells a refused client how many seconds to wait. */
  static final String RETRY_AFTER = QuotaHeaders.RETRY_AFTER;

  private GatewayHeaders() {}

  /** The policy names of a route's limits, as the headers name them. */
  static List<String> policyNames(String routeId, List<Limit> limits) {
    return QuotaHeaders.policyNames(routeId, limits);
  }

  /**
   * All headers of {@code decision} on {@code key} of route {@code routeId} by {@code limiter}: for
   * a key on no plan, every limit of the route under its policy name; for a key on a plan (as the
   * limiter tells it), the plan's binding limit alone, named by the route's id, even where it
   * equals one of the route's limits.
   */
  static Map<String, String> of(
      String routeId,
      RouteLimiter route,
      KeyedRateLimiter<String> limiter,
      String key,
      Decision decision) {
    QuotaHeaders quota = new QuotaHeaders();
    if (planOf(limiter, key, decision) == null) {
      quota.add(route.limits(), route.policyNames, decision);
    } else {
      quota.addOnPlan(routeId, decision);
    }
    if (decision.allowed()) {
      return quota.headers();
    }
    long retryAfter = quota.retryAfterSeconds(decision.retryAfter());
    Map<String, String> headers = new LinkedHashMap<>(quota.headers(retryAfter));
    headers.put(RETRY_AFTER, Long.toString(retryAfter));
    return headers;
  }

  /**
   * The plan {@code limiter} decided {@code key} by, or null for the route's limits; a plan of the
   * decision's limit alone if the limiter fails to tell, so that no other limit is told.
   */
  private static Plan planOf(KeyedRateLimiter<String> limiter, String key, Decision decision) {
    try {
      return limiter.planOf(key);
    } catch (RuntimeException e) {
      return Plan.of("unknown", decision.limit());
    }
  }

  /** Only the {@code Retry-After} of a refused {@code decision}. */
  static Map<String, String> retryAfterOnly(Decision decision) {
    return Map.of(
        RETRY_AFTER, Long.toString(QuotaHeaders.retryAfterSecondsOf(decision.retryAfter())));
  }

  /** The {@code Retry-After} of a refusal by the failure policy: one second. */
  static Map<String, String> retryAfterOnePolicy() {
    return Map.of(RETRY_AFTER, "1");
  }
}
