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
 * filters of the authentication and authorization priorities, so that a {@code principal} key reads
 * the authenticated user. A request that a post-matching filter ordered before it ends before this
 * filter's turn, by {@code abortWith} (a 401 for wrong credentials) or by throwing an exception
 * that a mapper answers ({@code NotAuthorizedException}, {@code ForbiddenException}), is counted
 * all the same, on its response, and if the rule refuses it the refusal replaces that answer,
 * without the answer's cookies, challenge and entity headers: else wrong credentials could be tried
 * without limit. Response filters of a higher priority have run by then and saw the replaced
 * answer. A request that an {@code @PreMatching} filter ends matched no method and never reaches
 * this filter; only the rules over paths of {@link RateLimitFilter} count it. Thread-safe if the
 * rule's key resolver, limiter and listener are.
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

  /**
   * Counts {@code request}, which reached no resource method (see {@link LocatorCount}), on its
   * {@code response}, replacing the answer with the refusal if the rule refuses it.
   *
   * @return whether the rule refused it
   */
  boolean countOnResponse(ContainerRequestContext request, ContainerResponseContext response) {
    boolean[] refused = {false};
    JaxrsExchange.apply(
        request,
        decide(request),
        reply -> {
          refused[0] = true;
          JaxrsExchange.refuse(request, response, reply);
        });
    return refused[0];
  }

  private EnforcementCore.Outcome decide(ContainerRequestContext request) {
    return core.enforce(
        request, request.getMethod(), List.of("/"), () -> JaxrsExchange.report(request));
  }
}
