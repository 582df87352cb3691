package io.slidingwindow.server.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Gathers a request and its body, up to {@value Json#MAX_BODY_BYTES} bytes; a longer one is
 * answered 413 with a JSON error, and so is a request whose {@code Expect: 100-continue} announces
 * a longer one; a request with another {@code Expect} is answered 417. Each such answer closes the
 * connection a second later (what the client still sends is read and dropped meanwhile, never
 * decided): {@link #CLOSING} tells the handlers behind so. One per connection.
 */
final class BoundedAggregator extends HttpObjectAggregator {

  /** The user event of a connection answered by the aggregator and about to close. */
  static final Object CLOSING = new Object();

  private final Consumer<String> problems;
  private ChannelHandlerContext context;

  BoundedAggregator(Consumer<String> problems) {
    super(Json.MAX_BODY_BYTES);
    this.problems = problems;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
    this.context = ctx;
    super.handlerAdded(ctx);
  }

  private static void close(ChannelHandlerContext ctx) {
    var unused = ctx.close();
  }

  @Override
  protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
    FullHttpResponse response = closing(ctx, HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE);
    var unused = ctx.writeAndFlush(response);
  }

  /**
   * Netty's own answer to an {@code Expect} it will not meet (413 or 417, without a body, leaving
   * the connection open but no longer read) becomes a JSON error that closes the connection; {@code
   * 100 Continue} stays as it is.
   */
  @Override
  protected Object newContinueResponse(
      HttpMessage start, int maxContentLength, ChannelPipeline pipeline) {
    Object answer = super.newContinueResponse(start, maxContentLength, pipeline);
    if (answer instanceof HttpResponse refusal
        && refusal.status().codeClass() == HttpStatusClass.CLIENT_ERROR) {
      HttpResponseStatus status = refusal.status();
      ReferenceCountUtil.release(answer);
      return closing(context, status);
    }
    return answer;
  }

  /**
   * A closing answer of {@code status} (413 or 417): counts it, tells the handlers of the pipeline,
   * and reads and drops what the client still sends for a second, then closes, so that closing with
   * unread bytes does not reset the connection before the client has read the answer.
   */
  private FullHttpResponse closing(ChannelHandlerContext ctx, HttpResponseStatus status) {
    boolean tooLarge = status.code() == HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE.code();
    problems.accept(tooLarge ? "too_large" : "malformed_http");
    byte[] body =
        Json.error(
            tooLarge
                ? "the body must be at most " + Json.MAX_BODY_BYTES + " bytes"
                : "the only Expect this service meets is 100-continue");
    FullHttpResponse response =
        new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(body));
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
    response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
    response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    ctx.pipeline().fireUserEventTriggered(CLOSING);
    ctx.channel().config().setAutoRead(true);
    var unused = ctx.executor().schedule(() -> close(ctx), 1, TimeUnit.SECONDS);
    return response;
  }
}
