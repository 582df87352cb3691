package io.slidingwindow.webflux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.netty.channel.unix.DomainSocketAddress;
import io.slidingwindow.http.ClientAddresses;
import java.io.ByteArrayOutputStream;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.server.reactive.HttpHandler;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.web.server.adapter.ForwardedHeaderTransformer;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.resources.LoopResources;

/**
 * A Reactor Netty server bound to a Unix domain socket (as behind a reverse proxy on the same
 * host), believing forwarded headers or not, as {@code server.forward-headers-strategy} sets it:
 * with {@code framework} the request's remote address is the first {@code X-Forwarded-For} value,
 * and the client keys never take it. The peer is {@code 127.0.0.1}, as Tomcat reports such a peer:
 * one key for every client unless {@code 127.0.0.1} is a trusted proxy, whose {@code
 * X-Forwarded-For} is then read right to left. A real server on the native transport (and on NIO,
 * whose peer is the JDK's {@code UnixDomainSocketAddress}) and a real client (the JDK's Unix domain
 * socket channel) speaking HTTP/1.1.
 */
class UnixSocketPeerTest {

  /** What {@code server.forward-headers-strategy} makes of the server. */
  enum Strategy {
    /** Forwarded headers believed by nobody but the keys' trusted proxies. */
    NONE,
    /** Reactor Netty's own reading of forwarded headers ({@code HttpServer.forwarded(true)}). */
    NATIVE,
    /** Spring's {@code ForwardedHeaderTransformer}, which rewrites the remote address. */
    FRAMEWORK
  }

  @TempDir Path dir;

  /**
   * The client key of each request, one per {@code X-Forwarded-For} value, as a server on a Unix
   * domain socket that believes forwarded headers finds it with {@code addresses}.
   */
  private List<String> keys(
      ClientAddresses addresses, Strategy strategy, List<String> forwardedFor) {
    return keys(addresses, strategy, forwardedFor, false);
  }

  /**
   * As {@link #keys(ClientAddresses, Strategy, List)}; with {@code jdk}, on Netty's NIO transport,
   * whose Unix domain socket peer is the JDK's {@code UnixDomainSocketAddress}, not Netty's.
   */
  private List<String> keys(
      ClientAddresses addresses, Strategy strategy, List<String> forwardedFor, boolean jdk) {
    Path socket = dir.resolve("peer.sock");
    WebHttpHandlerBuilder handler =
        WebHttpHandlerBuilder.webHandler(
            exchange -> {
              byte[] key =
                  ReactiveClientKeys.of(addresses, exchange.getRequest())
                      .value()
                      .getBytes(StandardCharsets.UTF_8);
              exchange.getResponse().getHeaders().setContentLength(key.length);
              DataBuffer body = exchange.getResponse().bufferFactory().wrap(key);
              return exchange.getResponse().writeWith(Mono.just(body));
            });
    if (strategy == Strategy.FRAMEWORK) {
      handler.forwardedHeaderTransformer(new ForwardedHeaderTransformer());
    }
    HttpHandler keys = handler.build();
    LoopResources nio = jdk ? LoopResources.create("uds-nio", 1, true) : null;
    HttpServer bound =
        jdk
            ? HttpServer.create()
                .runOn(nio, false)
                .bindAddress(() -> UnixDomainSocketAddress.of(socket))
            : HttpServer.create().bindAddress(() -> new DomainSocketAddress(socket.toString()));
    DisposableServer server = null;
    try {
      server =
          bound
              .forwarded(strategy == Strategy.NATIVE)
              .handle(new ReactorHttpHandlerAdapter(keys))
              .bindNow(Duration.ofSeconds(10));
      List<String> found = new ArrayList<>();
      for (String hops : forwardedFor) {
        found.add(
            assertTimeoutPreemptively(
                Duration.ofSeconds(10), () -> body(socket, "X-Forwarded-For: " + hops)));
      }
      return found;
    } finally {
      if (server != null) {
        server.disposeNow(Duration.ofSeconds(10));
      }
      if (nio != null) {
        nio.disposeLater().block(Duration.ofSeconds(10));
      }
    }
  }

  /** GET / over the socket with {@code header}; the answer's body, checked to be a 200. */
  private static String body(Path socket, String header) throws Exception {
    String request =
        "GET / HTTP/1.1\r\nHost: localhost\r\n" + header + "\r\nConnection: close\r\n\r\n";
    ByteArrayOutputStream answer = new ByteArrayOutputStream();
    try (SocketChannel channel = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
      channel.write(ByteBuffer.wrap(request.getBytes(StandardCharsets.US_ASCII)));
      ByteBuffer buffer = ByteBuffer.allocate(4096);
      while (channel.read(buffer) >= 0) {
        answer.write(buffer.array(), 0, buffer.position());
        buffer.clear();
      }
    }
    String text = answer.toString(StandardCharsets.UTF_8);
    assertThat(text).startsWith("HTTP/1.1 200");
    return text.substring(text.indexOf("\r\n\r\n") + 4);
  }

  private static List<String> each(int count, Function<Integer, String> hops) {
    List<String> values = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      values.add(hops.apply(i));
    }
    return values;
  }

  @ParameterizedTest
  @EnumSource(Strategy.class)
  void unixSocketPeer_noTrustedProxy_everyXForwardedForIsKeyedAsTheLocalPeer(Strategy strategy) {
    assertThat(keys(ClientAddresses.direct(), strategy, each(3, i -> "203.0.113." + i)))
        .as("a client writing a new X-Forwarded-For for each request keeps the peer's key")
        .containsExactly("ip:127.0.0.1", "ip:127.0.0.1", "ip:127.0.0.1");
  }

  /**
   * Not with {@code framework}: Spring's transformer removes the forwarded headers it applied, so
   * there is no {@code X-Forwarded-For} left to read (as docs/http.md says, name the proxies in
   * {@code trusted-proxies} and leave the strategy unset).
   */
  @ParameterizedTest
  @EnumSource(
      value = Strategy.class,
      names = {"NONE", "NATIVE"})
  void unixSocketPeer_127Trusted_xForwardedForIsReadRightToLeft(Strategy strategy) {
    ClientAddresses addresses = ClientAddresses.trusting(List.of("127.0.0.1"));
    assertThat(keys(addresses, strategy, each(2, i -> "198.51.100." + i + ", 203.0.113.5")))
        .as("the hop the local proxy appended, not the one the client wrote")
        .containsExactly("ip:203.0.113.5", "ip:203.0.113.5");
  }

  /** The JDK's peer address (NIO transport) is the local peer too, as Netty's native one is. */
  @ParameterizedTest
  @EnumSource(Strategy.class)
  void jdkUnixSocketPeer_noTrustedProxy_everyXForwardedForIsKeyedAsTheLocalPeer(Strategy strategy) {
    assertThat(keys(ClientAddresses.direct(), strategy, each(2, i -> "203.0.113." + i), true))
        .as("on NIO the peer is a java.net.UnixDomainSocketAddress, keyed as 127.0.0.1")
        .containsExactly("ip:127.0.0.1", "ip:127.0.0.1");
  }
}
