package io.slidingwindow.benchmarks.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;

/**
 * BENCHMARK HARNESS: bare HTTP/1.1 servers that read a POST and answer a fixed JSON decision, for
 * choosing the service's HTTP server: {@code netty} (the codec and an aggregator on Netty 4.1's
 * event loops, as the service's HTTP port uses them) or {@code jetty} (a Jetty 12 core {@code
 * Handler} on its default thread pool). Usage: {@code HttpFloor --port N --mode netty|jetty}.
 */
public final class HttpFloor {

  private static final byte[] ANSWER =
      ("{\"overall\":\"OK\",\"statuses\":[{\"code\":\"OK\",\"outcome\":\"OK\",\"rule\":\"granted\","
              + "\"limit\":{\"name\":\"\",\"requests\":1000000000,\"window\":\"PT1S\","
              + "\"unit\":\"SECOND\"},\"remaining\":999999999,\"durationUntilResetMillis\":1000}]}")
          .getBytes(StandardCharsets.UTF_8);

  private HttpFloor() {}

  /** Runs a floor; see the class comment. */
  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[1]);
    String mode = args[3];
    if (mode.equals("netty")) {
      netty(port);
    } else {
      jetty(port);
    }
    System.out.println("floor listening on " + port + " (" + mode + ")");
    new CountDownLatch(1).await();
  }

  private static void netty(int port) throws InterruptedException {
    NioEventLoopGroup group = new NioEventLoopGroup();
    new ServerBootstrap()
        .group(group)
        .channel(NioServerSocketChannel.class)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childHandler(
            new ChannelInitializer<SocketChannel>() {
              @Override
              protected void initChannel(SocketChannel channel) {
                channel
                    .pipeline()
                    .addLast(new HttpServerCodec())
                    .addLast(new HttpObjectAggregator(1 << 20))
                    .addLast(
                        new SimpleChannelInboundHandler<FullHttpRequest>() {
                          @Override
                          protected void channelRead0(
                              ChannelHandlerContext ctx, FullHttpRequest request) {
                            DefaultFullHttpResponse response =
                                new DefaultFullHttpResponse(
                                    HttpVersion.HTTP_1_1,
                                    HttpResponseStatus.OK,
                                    Unpooled.wrappedBuffer(ANSWER));
                            response
                                .headers()
                                .set(HttpHeaderNames.CONTENT_TYPE, "application/json")
                                .setInt(HttpHeaderNames.CONTENT_LENGTH, ANSWER.length);
                            var unused = ctx.writeAndFlush(response, ctx.voidPromise());
                          }
                        });
              }
            })
        .bind("127.0.0.1", port)
        .sync();
  }

  private static void jetty(int port) throws Exception {
    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(port);
    server.addConnector(connector);
    server.setHandler(
        new Handler.Abstract.NonBlocking() {
          @Override
          public boolean handle(Request request, Response response, Callback callback) {
            // Reads the body (as the service must) without blocking, then answers.
            var unused =
                Content.Source.asByteBufferAsync(request)
                    .whenComplete(
                        (body, error) -> {
                          response.getHeaders().put("Content-Type", "application/json");
                          response.write(true, ByteBuffer.wrap(ANSWER), callback);
                        });
            return true;
          }
        });
    server.start();
  }
}
