package io.slidingwindow.jaxrs;

import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.inject.Provider;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import org.glassfish.grizzly.http.server.Request;

/**
 * Records the Grizzly request's remote address as the {@link PeerAddress} of each request, for
 * Jersey on its Grizzly HTTP server (which is no servlet container). Register it as a class, so
 * that Jersey injects the request of each call; it runs before the rate-limit filters. Needs
 * Grizzly and {@code jakarta.inject}, which that deployment has; nothing else in this module does.
 */
@PreMatching
@Priority(Priorities.AUTHENTICATION - 500)
public final class GrizzlyPeerAddressFilter implements ContainerRequestFilter {

  @Inject private Provider<Request> grizzlyRequest;

  @Override
  public void filter(ContainerRequestContext request) {
    PeerAddress.set(request, grizzlyRequest.get().getRemoteAddr());
  }
}
