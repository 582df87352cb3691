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
 * rule applies to every request that reached the method, whatever its path. It runs after the
 * filters of the authentication priority, so that a {@code principal} key reads the authenticated
 * user; a request that one of them ends ({@code abortWith}, such as a 401 for wrong credentials)
 * before this filter's turn is counted all the same, on its response, and if the rule refuses it
 * the refusal replaces that answer: else wrong credentials could be tried without limit.
 * Thread-safe if the rule's key resolver, limiter and listener are.
 */
@Priority(Priorities.AUTHORIZATION + 100)
final class MethodRateLimitFilter implements ContainerRequestFilter, ContainerResponseFilter {

  /** The request property that says the request side decided the request. */
  private static final String DECIDED = MethodRateLimitFilter.class.getName() + ".decided";

  private final EnforcementCore<ContainerRequestContext> core;

  MethodRateLimitFilter(EnforcementCore<ContainerRequestContext> core) {
    this.core = core;
  }

  @Override
  public void filter(ContainerRequestContext request) {
    request.setProperty(DECIDED, Boolean.TRUE);
    JaxrsExchange.apply(request, decide(request));
  }

  @Override
  public void filter(ContainerRequestContext request, ContainerResponseContext response) {
    if (request.getProperty(DECIDED) == null) {
      // An earlier filter ended the request before this one's turn: count it now.
      request.setProperty(DECIDED, Boolean.TRUE);
      JaxrsExchange.apply(
          request, decide(request), reply -> JaxrsExchange.refuse(request, response, reply));
    }
    JaxrsExchange.answer(request, response);
  }

  private EnforcementCore.Outcome decide(ContainerRequestContext request) {
    return core.enforce(
        request, request.getMethod(), List.of("/"), () -> JaxrsExchange.report(request));
  }
}
