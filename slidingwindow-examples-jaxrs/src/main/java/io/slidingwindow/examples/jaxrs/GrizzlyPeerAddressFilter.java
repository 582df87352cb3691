package io.slidingwindow.examples.jaxrs;

import io.slidingwindow.jaxrs.PeerAddress;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.inject.Provider;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import org.glassfish.grizzly.http.server.Request;

/**
 * Tells the rate limits the client's address on Jersey's Grizzly server, which JAX-RS itself does
 * not expose (a servlet container would use {@code ServletPeerAddressFilter} instead).
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
