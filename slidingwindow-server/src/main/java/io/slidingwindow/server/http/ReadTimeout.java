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
 * never ends; the dispatcher tells it when a request is complete. One timer per connection, not per
 * request: it wakes at most once a timeout, and when a request has been arriving for longer than
 * the timeout it ends the connection, else it sleeps until that request's time is up. One per
 * connection, used on its event loop only.
 */
final class ReadTimeout extends ChannelDuplexHandler {

  private static final byte[] ANSWER =
      answer("{\"error\":\"the request took too long to arrive\"}");

  private final long timeoutNanos;
  private final Consumer<String> problems;
  private ChannelHandlerContext context;
  private ScheduledFuture<?> timer;

  /** When the first byte of the request now arriving came, or 0 between requests. */
  private long requestStart;

  ReadTimeout(Duration timeout, Consumer<String> problems) {
    this.timeoutNanos = timeout.toNanos();
    this.problems = problems;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.context = ctx;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    timer = ctx.executor().schedule(this::check, timeoutNanos, TimeUnit.NANOSECONDS);
    super.channelActive(ctx);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (requestStart == 0 && msg instanceof ByteBuf bytes && bytes.isReadable()) {
      requestStart = started(System.nanoTime());
    }
    ctx.fireChannelRead(msg);
  }

  /** A whole request arrived: its clock stops; the next byte starts the next request's. */
  void requestComplete() {
    requestStart = 0;
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
    super.channelInactive(ctx);
  }

  private void check() {
    timer = null;
    if (!context.channel().isActive()) {
      return;
    }
    long start = requestStart;
    long waited = start == 0 ? 0 : System.nanoTime() - start;
    if (waited >= timeoutNanos) {
      problems.accept("read_timeout");
      var unused =
          context
              .writeAndFlush(Unpooled.wrappedBuffer(ANSWER))
              .addListener(ChannelFutureListener.CLOSE);
      return;
    }
    timer = context.executor().schedule(this::check, timeoutNanos - waited, TimeUnit.NANOSECONDS);
  }

  /** {@code now}, never 0 (which marks no request). */
  private static long started(long now) {
    return now == 0 ? 1 : now;
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
}
