package io.slidingwindow.server.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Closes a connection whose request does not arrive whole within the read timeout of its first
 * byte, answering 408. Sits before the HTTP codec, so it sees bytes, even of a request line that
 * never ends; the dispatcher tells it when a request is complete. One per connection, used on its
 * event loop only.
 */
final class ReadTimeout extends ChannelDuplexHandler {

  private static final byte[] ANSWER =
      answer("{\"error\":\"the request took too long to arrive\"}");

  private final long timeoutNanos;
  private final Consumer<String> problems;
  private ChannelHandlerContext context;
  private ScheduledFuture<?> timer;

  ReadTimeout(Duration timeout, Consumer<String> problems) {
    this.timeoutNanos = timeout.toNanos();
    this.problems = problems;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.context = ctx;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (timer == null && msg instanceof ByteBuf bytes && bytes.isReadable()) {
      timer = ctx.executor().schedule(this::expire, timeoutNanos, TimeUnit.NANOSECONDS);
    }
    ctx.fireChannelRead(msg);
  }

  /** A whole request arrived: its clock stops; the next byte starts the next request's. */
  void requestComplete() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    requestComplete();
    super.channelInactive(ctx);
  }

  private static byte[] answer(String body) {
    return String.join(
            "\r\n",
            "HTTP/1.1 408 Request Timeout",
            "Content-Type: application/json",
            "Content-Length: " + body.length(),
            "Connection: close",
            "",
            body)
        .getBytes(StandardCharsets.US_ASCII);
  }

  private void expire() {
    timer = null;
    problems.accept("read_timeout");
    var unused =
        context
            .writeAndFlush(Unpooled.wrappedBuffer(ANSWER))
            .addListener(ChannelFutureListener.CLOSE);
  }
}
