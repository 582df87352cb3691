package io.slidingwindow.webflux;

import io.netty.handler.codec.http.HttpHeaders;
import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.RequestKey;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.util.ClassUtils;
import reactor.netty.http.server.HttpServerRequest;

/**
 * The client address of a reactive request, as {@link ClientAddresses} finds it: the connection's
 * peer, and {@code X-Forwarded-For} only from trusted proxies. The one reading that the reactive
 * filter and the gateway's key resolvers share. Stateless.
 *
 * <p>On Reactor Netty a request that carries {@code X-Forwarded-For} or {@code Forwarded} is keyed
 * by the connection's own peer ({@code connectionRemoteAddress()}), not by the request's remote
 * address: a server that believes forwarded headers ({@code
 * server.forward-headers-strategy=native}, Spring Boot's default on a cloud platform) reports the
 * first of their values as the remote address, whichever peer sent it, and a client would choose
 * its own key with it. Other requests keep Reactor Netty's remote address, so that behind a load
 * balancer speaking the PROXY protocol each client is its own peer.
 */
public final class ReactiveClientKeys {

  private static final boolean REACTOR_NETTY =
      ClassUtils.isPresent(
          "reactor.netty.http.server.HttpServerRequest", ReactiveClientKeys.class.getClassLoader());

  private ReactiveClientKeys() {}

  /**
   * The key of {@code request}'s client address (IPv6 by the prefix {@code addresses} keys by).
   *
   * @throws IllegalArgumentException if an argument is null
   */
  public static RequestKey of(ClientAddresses addresses, ServerHttpRequest request) {
    if (addresses == null || request == null) {
      throw new IllegalArgumentException(
          "addresses and request must not be null, were " + addresses + " and " + request);
    }
    return addresses.key(remoteAddress(request), forwardedFor(request));
  }

  /** The peer's address as text, as a servlet container reports it; empty if unknown. */
  static String remoteAddress(ServerHttpRequest request) {
    InetSocketAddress remote = REACTOR_NETTY ? NettyPeer.of(request) : null;
    if (remote == null) {
      remote = request.getRemoteAddress();
    }
    if (remote == null) {
      return "";
    }
    InetAddress address = remote.getAddress();
    return address != null ? address.getHostAddress() : remote.getHostString();
  }

  /**
   * Every {@code X-Forwarded-For} value, in order, each as sent (not split at commas). Read through
   * {@code HttpHeaders.forEach}, whose signature Spring Framework 6 and 7 share: {@code
   * HttpHeaders.get} takes an {@code Object} in 6 and a {@code String} in 7, so a call compiled
   * against one fails on the other.
   */
  static List<String> forwardedFor(ServerHttpRequest request) {
    List<String> values = new ArrayList<>(1);
    request
        .getHeaders()
        .forEach(
            (name, lines) -> {
              if (name.equalsIgnoreCase(ClientAddresses.X_FORWARDED_FOR)) {
                values.addAll(lines);
              }
            });
    return values;
  }

  /** The peer of a Reactor Netty connection; loaded only when Reactor Netty is there. */
  private static final class NettyPeer {

    /**
     * The peer of {@code request} as Reactor Netty saw it before any forwarded header, or null if
     * {@code request} is not Reactor Netty's. A request that carries {@code Forwarded} or {@code
     * X-Forwarded-For} gets the connection's own peer ({@code connectionRemoteAddress()}): a server
     * that believes those headers reports their first value as the remote address, whoever wrote
     * it. Any other request gets Reactor Netty's remote address, which is the connection's peer or,
     * behind a load balancer speaking the PROXY protocol, the client that the balancer names (the
     * connection's peer is then the balancer, shared by every client). The headers are read on
     * Reactor Netty's own request, which Spring's {@code ForwardedHeaderTransformer} does not
     * change.
     */
    static InetSocketAddress of(ServerHttpRequest request) {
      Object served;
      try {
        served = ServerHttpRequestDecorator.getNativeRequest(request);
      } catch (IllegalArgumentException | IllegalStateException e) {
        return null; // a request with no native request to tell (a mock, a foreign decorator)
      }
      if (!(served instanceof HttpServerRequest netty)) {
        return null;
      }
      HttpHeaders headers = netty.requestHeaders();
      boolean forwarded = headers.contains("Forwarded") || headers.contains("X-Forwarded-For");
      SocketAddress peer = forwarded ? netty.connectionRemoteAddress() : netty.remoteAddress();
      return peer instanceof InetSocketAddress address ? address : null;
    }
  }
}
