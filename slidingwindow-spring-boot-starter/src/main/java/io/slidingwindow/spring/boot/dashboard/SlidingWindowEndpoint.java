package io.slidingwindow.spring.boot.dashboard;

import java.util.Map;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * The {@code slidingwindow} actuator endpoint ({@code GET /actuator/slidingwindow} once exposed):
 * the application's rules and their recent decisions, in the same document as the rate limit
 * service's dashboard feed ({@code GET /v1/dashboard}), so the same dashboard page can draw it.
 * Like every endpoint but {@code health}, it is exposed over HTTP only when {@code
 * management.endpoints.web.exposure.include} names it; it shows refused keys (client addresses, API
 * keys), so expose it only behind the access control of the other management endpoints. Over HTTP
 * it also serves the page that draws it ({@link SlidingWindowPageWebExtension}). A bean of {@link
 * SlidingWindowEndpointAutoConfiguration}, which an application's own of this type replaces.
 */
@Endpoint(id = SlidingWindowEndpoint.ID)
public class SlidingWindowEndpoint {

  /** The endpoint's id. */
  public static final String ID = "slidingwindow";

  private final DashboardRateLimitListener dashboard;

  /** Answers what {@code dashboard} recorded. */
  public SlidingWindowEndpoint(DashboardRateLimitListener dashboard) {
    this.dashboard = dashboard;
  }

  /** The dashboard feed: see {@link io.slidingwindow.dashboard.DashboardFeed}. */
  @ReadOperation
  public Map<String, Object> dashboard() {
    return dashboard.feed();
  }
}
