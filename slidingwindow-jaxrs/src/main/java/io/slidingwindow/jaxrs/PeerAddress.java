package io.slidingwindow.jaxrs;

import jakarta.ws.rs.container.ContainerRequestContext;

/**
 * The address of the connection's peer, which JAX-RS does not expose: a filter of the runtime's
 * (such as {@link ServletPeerAddressFilter} on a servlet container) puts it into the request
 * property {@value #PROPERTY} before the rate-limit filters run, and the client address keys read
 * it from there.
 *
 * <p>A request without it is keyed as one unknown client: every such request shares one window,
 * which limits too much rather than too little, and the first one is logged at WARNING.
 */
public final class PeerAddress {

  /** The request property that holds the peer's IP address as text. */
  public static final String PROPERTY = "io.slidingwindow.jaxrs.peerAddress";

  private static final System.Logger LOG = System.getLogger(PeerAddress.class.getName());
  private static volatile boolean warned;

  private PeerAddress() {}

  /**
   * Records {@code address} as the peer of {@code request}.
   *
   * @throws IllegalArgumentException if an argument is null
   */
  public static void set(ContainerRequestContext request, String address) {
    if (request == null || address == null) {
      throw new IllegalArgumentException(
          "request and address must not be null, were " + request + " and " + address);
    }
    request.setProperty(PROPERTY, address);
  }

  /** The peer address recorded for {@code request}; empty text if none was. */
  public static String of(ContainerRequestContext request) {
    if (request.getProperty(PROPERTY) instanceof String address) {
      return address;
    }
    if (!warned) {
      warned = true;
      LOG.log(
          System.Logger.Level.WARNING,
          "no peer address in request property "
              + PROPERTY
              + ": requests without one share one client window; register"
              + " ServletPeerAddressFilter (servlet containers) or a filter of your runtime");
    }
    return "";
  }
}
