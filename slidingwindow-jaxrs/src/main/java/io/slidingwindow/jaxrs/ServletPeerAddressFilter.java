package io.slidingwindow.jaxrs;

import jakarta.annotation.Priority;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.Context;

/**
 * Records the servlet request's remote address as the {@link PeerAddress} of each request, for a
 * JAX-RS runtime on a servlet container (Jersey's servlet container, RESTEasy on Undertow, Tomcat
 * or Jetty). It runs before the rate-limit filters. Needs the servlet API, which the container
 * supplies; nothing else in this module does. Thread-safe: the runtime injects a proxy of the
 * current request.
 */
@PreMatching
@Priority(Priorities.AUTHENTICATION - 500)
public final class ServletPeerAddressFilter implements ContainerRequestFilter {

  @Context private HttpServletRequest servletRequest;

  @Override
  public void filter(ContainerRequestContext request) {
    String address = servletRequest == null ? null : servletRequest.getRemoteAddr();
    if (address != null) {
      PeerAddress.set(request, address);
    }
  }
}
