package io.slidingwindow.webflux;

import io.netty.channel.ChannelHandler;
import io.netty.handler.codec.http.HttpHeaders;
import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.RequestKey;
import java.lang.reflect.Field;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.util.ClassUtils;
import reactor.netty.Connection;
import reactor.netty.NettyPipeline;
import reactor.netty.http.server.HttpServerRequest;

/**
 * The client address of a reactive request, as {@link ClientAddresses} finds it: the connection's
 * peer, and {@code X-Forwarded-For} only from trusted proxies. The one reading that the reactive
 * filter and the gateway's key resolvers share. Stateless.
 *
 * <p>On Reactor Netty the peer is the one Reactor Netty's HTTP handler took for the connection
 * before it read any header: the socket's peer, or, behind a load balancer speaking the PROXY
 * protocol, the client the balancer names. Never the request's remote address as such: a server
 * that believes forwarded headers ({@code server.forward-headers-strategy=native}, Spring Boot's
 * default on a cloud platform) reports the first {@code X-Forwarded-For} or {@code Forwarded} value
 * as the remote address, whichever peer sent it, and a client would choose its own key with it.
 * That peer is read from a field of Reactor Netty's handler; where it cannot be (another version),
 * a request that carries {@code X-Forwarded-For} or {@code Forwarded} is keyed by the connection's
 * own peer ({@code connectionRemoteAddress()}, which behind a PROXY protocol balancer is the
 * balancer), any other by Reactor Netty's remote address.
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
     * By class of Reactor Netty's HTTP handler, its field holding the connection's peer as it took
     * it before any forwarded header (the source a PROXY protocol header named, else the socket's
     * peer); empty where the class has no such field or does not let it be read.
     */
    private static final ConcurrentHashMap<Class<?>, Optional<Field>> TRANSPORT_PEERS =
        new ConcurrentHashMap<>();

    /**
     * The peer of {@code request} as Reactor Netty saw it before any forwarded header, or null if
     * {@code request} is not Reactor Netty's. First the peer that Reactor Netty's HTTP handler took
     * for the connection before reading any header: the client a load balancer speaking the PROXY
     * protocol names, or else the connection's own peer. Where that cannot be read, a request that
     * carries {@code Forwarded} or {@code X-Forwarded-For} gets the connection's own peer ({@code
     * connectionRemoteAddress()}), since a server that believes those headers reports their first
     * value as the remote address, whoever wrote it; any other request gets Reactor Netty's remote
     * address (then the client a PROXY protocol header names). The headers are read on Reactor
     * Netty's own request, which Spring's {@code ForwardedHeaderTransformer} does not change.
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
      SocketAddress peer = transportPeer(netty);
      if (peer == null) {
        HttpHeaders headers = netty.requestHeaders();
        boolean forwarded = headers.contains("Forwarded") || headers.contains("X-Forwarded-For");
        peer = forwarded ? netty.connectionRemoteAddress() : netty.remoteAddress();
      }
      return peer instanceof InetSocketAddress address ? address : null;
    }

    /**
     * The peer Reactor Netty's HTTP handler of the connection (or of the HTTP/2 stream) took before
     * any header was read, or null if it cannot be read.
     */
    private static SocketAddress transportPeer(HttpServerRequest netty) {
      if (!(netty instanceof Connection connection)) {
        return null;
      }
      ChannelHandler handler =
          connection.channel().pipeline().get(NettyPipeline.HttpTrafficHandler);
      if (handler == null) {
        return null;
      }
      Optional<Field> field =
          TRANSPORT_PEERS.computeIfAbsent(handler.getClass(), NettyPeer::transportPeerField);
      if (field.isEmpty()) {
        return null;
      }
      try {
        return field.get().get(handler) instanceof SocketAddress peer ? peer : null;
      } catch (IllegalAccessException | RuntimeException e) {
        return null;
      }
    }

    private static Optional<Field> transportPeerField(Class<?> handler) {
      try {
        Field field = handler.getDeclaredField("remoteAddress");
        if (!SocketAddress.class.isAssignableFrom(field.getType())) {
          return Optional.empty();
        }
        field.setAccessible(true);
        return Optional.of(field);
      } catch (NoSuchFieldException | RuntimeException e) {
        return Optional.empty(); // another version, or a module that does not open it
      }
    }
  }
}
