package io.slidingwindow.server.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Gathers a request and its body, up to {@value Json#MAX_BODY_BYTES} bytes; a longer one is
 * answered 413 with a JSON error, and the connection closes a second later (its body read and
 * dropped meanwhile). One per connection.
 */
final class BoundedAggregator extends HttpObjectAggregator {

  private final Consumer<String> problems;

  BoundedAggregator(Consumer<String> problems) {
    super(Json.MAX_BODY_BYTES);
    this.problems = problems;
  }

  private static void closeSoon(ChannelHandlerContext ctx) {
    var unused = ctx.executor().schedule(() -> close(ctx), 1, TimeUnit.SECONDS);
  }

  private static void close(ChannelHandlerContext ctx) {
    var unused = ctx.close();
  }

  @Override
  protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
    problems.accept("too_large");
    byte[] body = Json.error("the body must be at most " + Json.MAX_BODY_BYTES + " bytes");
    FullHttpResponse response =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1,
            HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
            Unpooled.wrappedBuffer(body));
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
    response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
    response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    // The client may still be sending the body: read and drop it for a moment, so that closing
    // with unread bytes does not reset the connection before the client has read the answer.
    ctx.channel().config().setAutoRead(true);
    ctx.writeAndFlush(response).addListener(written -> closeSoon(ctx));
  }
}
