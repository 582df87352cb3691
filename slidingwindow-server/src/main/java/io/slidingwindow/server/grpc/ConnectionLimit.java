package io.slidingwindow.server.grpc;

import io.grpc.netty.shaded.io.netty.channel.Channel;
import io.grpc.netty.shaded.io.netty.channel.ChannelFactory;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandler;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandlerContext;
import io.grpc.netty.shaded.io.netty.channel.ChannelInboundHandlerAdapter;
import io.grpc.netty.shaded.io.netty.channel.ServerChannel;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Bounds the gRPC port's open connections: sits in the listening channel's pipeline, ahead of the
 * handler that hands each accepted connection to gRPC, and closes a connection beyond the limit
 * before gRPC ever sees it (no HTTP/2 preface, no TLS handshake: the client reads a closed
 * connection, gRPC's UNAVAILABLE). Each one closed is reported with {@code too_many_connections}.
 * Thread-safe.
 */
@ChannelHandler.Sharable
final class ConnectionLimit extends ChannelInboundHandlerAdapter {

  /** The word each connection closed at the limit is reported with. */
  static final String TOO_MANY_CONNECTIONS = "too_many_connections";

  private final int max;
  private final Runnable refused;
  private final AtomicInteger open = new AtomicInteger();

  /** A limit of {@code max} open connections; {@code refused} runs for each one closed. */
  ConnectionLimit(int max, Runnable refused) {
    this.max = max;
    this.refused = refused;
  }

  /** Listening channels (NIO) that carry this limit. */
  ChannelFactory<ServerChannel> listeners() {
    return () -> {
      NioServerSocketChannel listener = new NioServerSocketChannel();
      listener.pipeline().addLast(this);
      return listener;
    };
  }

  /** Each message of a listening channel is a connection just accepted, not yet registered. */
  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    Channel connection = (Channel) msg;
    if (open.incrementAndGet() > max) {
      open.decrementAndGet();
      connection.unsafe().closeForcibly();
      refused.run();
      return;
    }
    var unused = connection.closeFuture().addListener(f -> open.decrementAndGet());
    ctx.fireChannelRead(msg);
  }
}
