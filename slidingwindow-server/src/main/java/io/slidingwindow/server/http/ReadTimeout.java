package io.slidingwindow.server.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Closes a connection whose request does not arrive whole within the read timeout of its first
 * byte, answering 408. Sits before the HTTP codec, so it sees bytes, even of a request line that
 * never ends; {@link #completions} tells it when a request is whole (as soon as it is, even if it
 * must wait behind another), and the codec whether the bytes that ended it also began the next
 * request, whose clock then starts with them. One timer per connection, not per request: it wakes
 * at most once a timeout, and when a request has been arriving for longer than the timeout it ends
 * the connection, else it sleeps until that request's time is up. While the connection's request in
 * flight is being decided, or whole requests wait behind it, the 408 waits for their answers, which
 * come first: a request decided and counted is always answered, and answers keep the order of
 * requests. The clock of a request whose {@code 100 Continue} waits behind them stands still: its
 * client was told nothing yet, so it holds its body back; it starts again when the last answer
 * before it is sent, just before that {@code 100 Continue} is. One per connection, used on its
 * event loop only.
 */
final class ReadTimeout extends ChannelDuplexHandler {

  private static final byte[] ANSWER =
      answer("{\"error\":\"the request took too long to arrive\"}");

  private final long timeoutNanos;
  private final Consumer<String> problems;
  private final HttpCodec codec;
  private ChannelHandlerContext context;
  private ScheduledFuture<?> timer;

  /** When the first byte of the request now arriving came, or 0 between requests. */
  private long requestStart;

  /** Whether a request of this connection is being answered. */
  private boolean answering;

  /** How many whole requests wait to be answered behind the one being answered. */
  private int waiting;

  /**
   * Whether the request now arriving has its {@code 100 Continue} held behind the answers still
   * owed to the requests before it: its clock does not run meanwhile.
   */
  private boolean held;

  /** Whether the connection is closing (408, or a refusal on its way): nothing more to time. */
  private boolean ended;

  /** Whether this handler answered 408 and is closing the connection. */
  private boolean timedOut;

  /** Times the requests that {@code codec}, the connection's, reads. */
  ReadTimeout(Duration timeout, Consumer<String> problems, HttpCodec codec) {
    this.timeoutNanos = timeout.toNanos();
    this.problems = problems;
    this.codec = codec;
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
    if (requestStart == 0 && codec.midRequest()) {
      // these bytes ended a request and began the next: its clock starts with them
      requestStart = started(System.nanoTime());
    }
  }

  /**
   * A handler, after the aggregator, that stops a request's clock as soon as it is whole (and
   * counts it as waiting to be answered), that holds it while the request's {@code 100 Continue}
   * waits behind the answers owed to requests before it (else the continue is sent at once, and the
   * clock runs on), and that ends the timing when a request is refused there (413, 417, or 401, 403
   * on its head: that answer comes in the request's turn, and closes the connection).
   */
  ChannelInboundHandlerAdapter completions() {
    return new ChannelInboundHandlerAdapter() {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof FullHttpRequest) {
          requestStart = 0; // the next byte starts the next request's clock
          held = false;
          waiting++;
        } else if (msg instanceof BoundedAggregator.Continue) {
          held = answering || waiting > 0;
        } else if (msg instanceof BoundedAggregator.Refusal) {
          ended = true; // answered in its turn, closing: no 408 ahead of it
        }
        ctx.fireChannelRead(msg);
      }
    };
  }

  /**
   * The request now arriving is refused in its turn, before it is whole, and the connection closes
   * with that answer: nothing more to time.
   */
  void refused() {
    ended = true;
  }

  /** A whole request of this connection is being answered: a 408 waits until it is. */
  void answering() {
    answering = true;
    waiting--;
  }

  /**
   * The request being answered was: if no whole request waits behind it and the request arriving is
   * past its time, that one is answered 408 now and the connection closes. If instead that
   * request's {@code 100 Continue} was held, it is the next thing sent, now: its clock starts
   * again.
   *
   * @return whether it answered 408 and the connection is closing, so that no further request may
   *     be decided (a refusal waiting its turn is still to be taken)
   */
  boolean answered() {
    answering = false;
    if (held && waiting == 0) {
      held = false;
      requestStart = started(System.nanoTime());
    } else if (!ended
        && waiting == 0
        && requestStart != 0
        && System.nanoTime() - requestStart >= timeoutNanos) {
      end();
    }
    return timedOut;
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
    if (ended || !context.channel().isActive()) {
      return;
    }
    long start = held ? 0 : requestStart;
    long waited = start == 0 ? 0 : System.nanoTime() - start;
    if (waited < timeoutNanos) {
      timer = context.executor().schedule(this::check, timeoutNanos - waited, TimeUnit.NANOSECONDS);
    } else if (answering || waiting > 0) { // answered() ends it once the requests before are
      timer = context.executor().schedule(this::check, timeoutNanos, TimeUnit.NANOSECONDS);
    } else {
      end();
    }
  }

  private void end() {
    ended = true;
    timedOut = true;
    problems.accept("read_timeout");
    var unused =
        context
            .writeAndFlush(Unpooled.wrappedBuffer(ANSWER))
            .addListener(ChannelFutureListener.CLOSE);
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
