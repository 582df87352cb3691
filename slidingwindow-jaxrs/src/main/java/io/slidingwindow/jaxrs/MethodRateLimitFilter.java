package io.slidingwindow.jaxrs;

import io.slidingwindow.http.EnforcementCore;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import java.util.List;

/**
 * The filter of one {@link RateLimit} method, bound to it by {@link RateLimitFeature}: the method's
 * rule applies to every request that reached the method, whatever its path. Thread-safe if the
 * rule's key resolver, limiter and listener are.
 */
@Priority(Priorities.AUTHORIZATION + 100)
final class MethodRateLimitFilter implements ContainerRequestFilter, ContainerResponseFilter {

  private final EnforcementCore<ContainerRequestContext> core;

  MethodRateLimitFilter(EnforcementCore<ContainerRequestContext> core) {
    this.core = core;
  }

  @Override
  public void filter(ContainerRequestContext request) {
    JaxrsExchange.apply(
        request,
        core.enforce(
            request, request.getMethod(), List.of("/"), () -> JaxrsExchange.report(request)));
  }

  @Override
  public void filter(ContainerRequestContext request, ContainerResponseContext response) {
    JaxrsExchange.answer(request, response);
  }
}
