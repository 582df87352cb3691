package io.slidingwindow.server.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.handler.flow.FlowControlHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.slidingwindow.server.settings.Settings;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * One HTTP/1.1 port on Netty: requests are read without a thread per connection, so connections
 * that hold half a request cost a little memory and no thread, and delay nobody.
 *
 * <p>Bounds: at most {@link Settings.Http#maxConnections()} open connections (further ones are
 * closed as they come); a request must arrive whole within {@link Settings.Http#readTimeout()} of
 * its first byte, else 408 and the connection closes; a connection that waits longer than {@link
 * Settings.Http#idleTimeout()} for its next request is closed; a request line over 4 KiB gets 414,
 * headers over 8 KiB 431, a body whose length is ambiguous 400 (see {@link HttpCodec}), a body over
 * {@value Json#MAX_BODY_BYTES} bytes 413 (also when {@code Expect: 100-continue} announces it, and
 * however it is framed), another {@code Expect} 417. A request the router refuses on its head (401,
 * 403: see {@code Router.screen}) is answered so before any of its body is gathered. A request
 * being decided is always answered: neither timeout ends its connection meanwhile, and a 408, 413,
 * 417 or head refusal of a request pipelined behind it waits for its answer and follows it, as does
 * the {@code 100 Continue} of one that announced its body with {@code Expect: 100-continue}. Each
 * connection serves one request at a time, in order (pipelined requests wait their turn, and so do
 * their answers); requests pipelined behind one that closes the connection ({@code Connection:
 * close}, HTTP/1.0 without {@code Connection: keep-alive}, 408, 413, 417, a head refusal) are
 * dropped, neither decided nor counted as decisions, as their answers could not be sent. Each bound
 * that ends a connection is reported to {@code problems} with a word: {@code too_many_connections},
 * {@code read_timeout}, {@code malformed_http}, {@code too_large}; the last two as soon as such a
 * request is recognised, even one dropped unanswered behind a closing answer.
 *
 * <p>{@link #close(long)} stops accepting, answers new requests on open connections with 503 (one
 * that announced its body with {@code Expect: 100-continue} too, instead of asking for it), waits
 * for the requests in flight, then closes every connection. Thread-safe.
 */
public final class HttpPort {

  private static final String SHUTTING_DOWN = "the rate limit service is shutting down";

  private final Channel server;
  private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private final AtomicInteger inFlight = new AtomicInteger();
  private volatile boolean draining;

  /**
   * Opens a port on {@code address} whose requests {@code router} answers, on {@code group}'s event
   * loops.
   *
   * @param ssl TLS of every connection, or null for plain HTTP
   * @param problems hears each bound that ended a connection
   * @throws IOException if the address cannot be bound
   */
  public HttpPort(
      InetSocketAddress address,
      Router router,
      Settings.Http bounds,
      SslContext ssl,
      EventLoopGroup group,
      Consumer<String> problems)
      throws IOException {
    ConnectionLimit limit = new ConnectionLimit(bounds.maxConnections(), problems);
    ServerBootstrap bootstrap =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .option(ChannelOption.SO_BACKLOG, 1024)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(ChannelOption.AUTO_READ, false)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel channel) {
                    connections.add(channel);
                    ChannelPipeline pipeline = channel.pipeline();
                    pipeline.addLast(limit);
                    if (ssl != null) {
                      pipeline.addLast(ssl.newHandler(channel.alloc()));
                    }
                    HttpCodec codec = new HttpCodec();
                    ReadTimeout timeout = new ReadTimeout(bounds.readTimeout(), problems, codec);
                    pipeline.addLast(timeout);
                    pipeline.addLast(
                        new IdleStateHandler(
                            0, 0, bounds.idleTimeout().toMillis(), TimeUnit.MILLISECONDS));
                    pipeline.addLast(codec);
                    pipeline.addLast(new BoundedAggregator(problems, router));
                    pipeline.addLast(timeout.completions());
                    pipeline.addLast(new FlowControlHandler());
                    pipeline.addLast(new Dispatcher(router, timeout));
                  }
                });
    try {
      server = bootstrap.bind(address).syncUninterruptibly().channel();
    } catch (RuntimeException e) {
      throw new IOException("cannot listen on " + address + ": " + e.getMessage(), e);
    }
  }

  /** The bound port. */
  public int port() {
    return ((InetSocketAddress) server.localAddress()).getPort();
  }

  /**
   * Stops accepting, answers new requests with 503, waits up to {@code timeoutNanos} for the
   * requests in flight, then closes every connection.
   *
   * @return whether every request in flight was answered
   */
  public boolean close(long timeoutNanos) {
    draining = true;
    server.close().syncUninterruptibly();
    long deadline = System.nanoTime() + timeoutNanos;
    boolean drained = true;
    while (inFlight.get() > 0) {
      if (deadline - System.nanoTime() <= 0) {
        drained = false;
        break;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }
    connections.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
    return drained;
  }

  /** Closes connections beyond the limit as they open. */
  @ChannelHandler.Sharable
  private static final class ConnectionLimit extends ChannelInboundHandlerAdapter {
    private final int max;
    private final Consumer<String> problems;
    private final AtomicInteger open = new AtomicInteger();

    ConnectionLimit(int max, Consumer<String> problems) {
      this.max = max;
      this.problems = problems;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
      if (open.incrementAndGet() > max) {
        problems.accept("too_many_connections");
        var unused = ctx.close();
        return;
      }
      super.channelActive(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
      open.decrementAndGet();
      super.channelInactive(ctx);
    }
  }

  /** Hands each whole request to the router, one at a time, and reads the next when answered. */
  private final class Dispatcher extends SimpleChannelInboundHandler<FullHttpRequest> {
    private final Router router;
    private final ReadTimeout timeout;

    Dispatcher(Router router, ReadTimeout timeout) {
      super(false);
      this.router = router;
      this.timeout = timeout;
    }

    /** Run by each exchange once answered, on any thread; one per connection. */
    private Runnable answered;

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
      Runnable next =
          () -> { // on the event loop
            busy = false;
            if (timeout.answered()) {
              closing = true;
            } else {
              ctx.read();
            }
          };
      answered =
          () -> {
            inFlight.decrementAndGet();
            if (ctx.executor().inEventLoop()) {
              next.run();
            } else {
              ctx.executor().execute(next);
            }
          };
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
      ctx.read();
      super.channelActive(ctx);
    }

    /**
     * Whether the connection is closing (a request asked to, or it was answered 408, 413, 417 or
     * refused on its head): later requests are dropped unread. Event loop only, as is {@link
     * #busy}.
     */
    private boolean closing;

    /** Whether a request of this connection is being answered: the idle timeout waits. */
    private boolean busy;

    /**
     * Takes the aggregator's refusal (413, 417; 401, 403 on its head) of a request, or the {@code
     * 100 Continue} it owes one, in that request's turn, after the answers of the requests before
     * it, as any request is taken; after a {@code 100 Continue}, reads on for the request's body.
     * While the port drains, a request's {@code 100 Continue} becomes 503 and closes the
     * connection, as a new request's answer does: its body is never asked for.
     */
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
      if (msg instanceof BoundedAggregator.Refusal refusal) {
        if (!closing) { // else behind an answer that closes the connection: never to be sent
          closing = true;
          refusal.send();
        }
      } else if (msg instanceof BoundedAggregator.Continue interim) {
        if (closing) { // behind an answer that closes the connection: never to be sent
          return;
        }
        if (draining) { // its body is not asked for: answered as any new request is
          closing = true;
          timeout.refused();
          BoundedAggregator.Refusal.of(ctx, HttpResponseStatus.SERVICE_UNAVAILABLE, SHUTTING_DOWN)
              .send();
        } else {
          interim.send();
          ctx.read();
        }
      } else {
        super.channelRead(ctx, msg);
      }
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
      if (closing) { // pipelined behind a closing answer, which its own could not follow
        request.release();
        return;
      }
      closing = !HttpUtil.isKeepAlive(request);
      busy = true;
      timeout.answering();
      inFlight.incrementAndGet();
      Exchange exchange = new Exchange(ctx, request, RequestTarget.of(request.uri()), answered);
      if (request.decoderResult().isFailure()) { // counted by the aggregator, as it came
        Throwable cause = request.decoderResult().cause();
        if (cause instanceof TooLongHttpLineException) { // the URI, as a rule: 414 says so
          exchange.fail(414, "the request line is longer than 4096 bytes", "Connection", "close");
        } else if (cause instanceof TooLongFrameException) {
          exchange.fail(431, "the headers are longer than 8192 bytes", "Connection", "close");
        } else {
          exchange.fail(400, "malformed HTTP request", "Connection", "close");
        }
        var unused = ctx.close();
      } else if (draining) {
        exchange.fail(503, SHUTTING_DOWN, "Connection", "close");
      } else {
        router.dispatch(exchange);
      }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
      if (event instanceof IdleStateEvent) {
        if (!busy) { // else the decision is slow, not the client: its answer resets the clock
          var unused = ctx.close();
        }
      } else {
        super.userEventTriggered(ctx, event);
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      var unused =
          ctx.close(); // a reset or TLS failure: the connection is gone, nothing to log per event
    }
  }
}
