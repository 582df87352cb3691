package io.slidingwindow.webflux;

import io.netty.channel.ChannelHandler;
import io.netty.handler.codec.http.HttpHeaders;
import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.RequestKey;
import java.lang.reflect.Field;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
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
 *
 * <p>A Reactor Netty peer that is no IP address is never replaced by the request's remote address
 * either (which a server believing forwarded headers would take from them): a peer on a Unix domain
 * socket (a reverse proxy on the same host) is {@code 127.0.0.1}, as Tomcat reports such a peer, so
 * that its {@code X-Forwarded-For} is read only if {@code addresses} trusts {@code 127.0.0.1}; any
 * other, or none, is the empty address, one key for every such request and never a trusted proxy. A
 * request that is not Reactor Netty's is keyed by its remote address.
 */
public final class ReactiveClientKeys {

  private static final boolean REACTOR_NETTY =
      ClassUtils.isPresent(
          "reactor.netty.http.server.HttpServerRequest", ReactiveClientKeys.class.getClassLoader());

  /** The address of a peer on a Unix domain socket, a process on the same host. */
  static final String LOCAL_PEER = "127.0.0.1";

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
    String peer = REACTOR_NETTY ? NettyPeer.of(request) : null;
    return peer != null ? peer : text(request.getRemoteAddress());
  }

  /** The address of {@code remote} as text; empty if null. */
  private static String text(InetSocketAddress remote) {
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
     * The address of the peer of {@code request} as Reactor Netty saw it before any forwarded
     * header: {@code 127.0.0.1} for a Unix domain socket, empty for any other peer that is no IP
     * address, or none; null only if {@code request} is not Reactor Netty's. First the peer that
     * Reactor Netty's HTTP handler took for the connection before reading any header: the client a
     * load balancer speaking the PROXY protocol names, or else the connection's own peer. Where
     * that cannot be read, a request that carries {@code Forwarded} or {@code X-Forwarded-For} gets
     * the connection's own peer ({@code connectionRemoteAddress()}), since a server that believes
     * those headers reports their first value as the remote address, whoever wrote it; any other
     * request gets Reactor Netty's remote address (then the client a PROXY protocol header names),
     * or, if that is none, the connection's own peer. The headers are read on Reactor Netty's own
     * request, which Spring's {@code ForwardedHeaderTransformer} does not change.
     */
    static String of(ServerHttpRequest request) {
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
        if (peer == null) {
          peer = netty.connectionRemoteAddress(); // no IP peer, as on a Unix domain socket
        }
      }
      if (peer instanceof InetSocketAddress address) {
        return text(address);
      }
      return isUnixDomainSocket(peer) ? LOCAL_PEER : "";
    }

    /**
     * Whether {@code peer} is the address of a Unix domain socket: Netty's own (native transports)
     * or the JDK's (NIO), told by class name since Netty's may not be on the class path.
     */
    private static boolean isUnixDomainSocket(SocketAddress peer) {
      for (Class<?> type = peer == null ? null : peer.getClass();
          type != null;
          type = type.getSuperclass()) {
        if (type == UnixDomainSocketAddress.class
            || type.getName().equals("io.netty.channel.unix.DomainSocketAddress")) {
          return true;
        }
      }
      return false;
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
