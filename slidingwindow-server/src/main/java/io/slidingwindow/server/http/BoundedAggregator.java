package io.slidingwindow.server.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
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
 * a longer one; a request with another {@code Expect} is answered 417. Such an answer is a {@link
 * Refusal}, and the {@code 100 Continue} of an acceptable {@code Expect} a {@link Continue}, each
 * passed on as a message in its request's place rather than written: the handler answering requests
 * sends it in its turn, once the answers of the requests before it have been, so that what the
 * client reads keeps the order of its requests. Sending a refusal closes the connection a second
 * later (what the client still sends is read and dropped meanwhile, never decided).
 *
 * <p>Each request refused here, and each the HTTP codec could not read, is reported to {@code
 * problems} ({@code too_large}, {@code malformed_http}) as soon as it is recognised, whether or not
 * its answer is ever sent: one pipelined behind an answer that closes the connection is dropped
 * unanswered, and still counted. One per connection.
 */
final class BoundedAggregator extends HttpObjectAggregator {

  private final Consumer<String> problems;
  private final Router router;
  private ChannelHandlerContext context;

  BoundedAggregator(Consumer<String> problems, Router router) {
    super(Json.MAX_BODY_BYTES);
    this.problems = problems;
    this.router = router;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
    this.context = ctx;
    super.handlerAdded(ctx);
  }

  @Override
  protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
    refuse(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE);
  }

  /**
   * Netty's own answer to an {@code Expect} it will not meet (413 or 417, without a body, leaving
   * the connection open but no longer read) becomes a {@link Refusal}, and Netty writes an empty
   * buffer in its place (nothing on the wire) and drops the body that follows. Its {@code 100
   * Continue}, which it would write at once, ahead of the answers still owed to the requests before
   * this one, becomes a {@link Continue} passed on in the request's place, and Netty writes nothing
   * and gathers the body as it comes.
   *
   * <p>Netty asks this of every request's head, with or without {@code Expect}, before it gathers
   * any of the body: so here the router screens each request on its head alone (the admin token
   * missing or wrong, a {@code Host} not answered), after the 413 and 417 above and a {@code
   * Content-Length} over the bound (413, left to Netty). A request it refuses becomes a {@link
   * Refusal} (401, 403) in place of its {@code 100 Continue} or of its gathering, and Netty writes
   * an empty buffer and drops its body into no buffer: never asked for after {@code Expect:
   * 100-continue}, else dropped as it comes, and not read on for meanwhile (the refusal, in its
   * turn, reads and drops for a second and closes). So a caller without the token cannot make the
   * port hold a body it will refuse.
   */
  @Override
  protected Object newContinueResponse(
      HttpMessage start, int maxContentLength, ChannelPipeline pipeline) {
    Object answer = super.newContinueResponse(start, maxContentLength, pipeline);
    if (answer instanceof HttpResponse response) {
      HttpResponseStatus status = response.status();
      ReferenceCountUtil.release(answer);
      if (status.codeClass() == HttpStatusClass.CLIENT_ERROR) {
        refuse(status);
        return Unpooled.EMPTY_BUFFER;
      }
      if (screened(start)) {
        return Unpooled.EMPTY_BUFFER;
      }
      context.fireChannelRead(new Continue(context));
      return null;
    }
    if (answer == null && !isContentLengthInvalid(start, maxContentLength) && screened(start)) {
      return Unpooled.EMPTY_BUFFER;
    }
    return answer;
  }

  /**
   * Whether the router refuses the request of head {@code start} on its head alone; if so its
   * refusal is passed on in the request's place, after the router has told its refusals.
   */
  private boolean screened(HttpMessage start) {
    Router.Denial denial =
        start instanceof HttpRequest request ? router.screen(context, request) : null;
    if (denial == null) {
      return false;
    }
    context.fireChannelRead(
        new Refusal(
            context,
            HttpResponseStatus.valueOf(denial.status()),
            denial.message(),
            denial.headers()));
    return true;
  }

  @Override
  protected boolean ignoreContentAfterContinueResponse(Object msg) {
    return msg == Unpooled.EMPTY_BUFFER || super.ignoreContentAfterContinueResponse(msg);
  }

  /**
   * Passes on, in the place of the request now arriving, its refusal with {@code status}: as a
   * message, so that it waits behind the whole requests before it, and is answered after them.
   */
  private void refuse(HttpResponseStatus status) {
    boolean tooLarge = status.code() == HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE.code();
    problems.accept(tooLarge ? "too_large" : "malformed_http");
    context.fireChannelRead(
        new Refusal(
            context,
            status,
            tooLarge
                ? "the body must be at most " + Json.MAX_BODY_BYTES + " bytes"
                : "the only Expect this service meets is 100-continue"));
  }

  /**
   * Counts what the HTTP codec could not read (a request line, headers or chunk), as it comes: the
   * codec reads nothing further on the connection, so once per connection.
   */
  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    if (msg instanceof HttpObject object && object.decoderResult().isFailure()) {
      problems.accept("malformed_http");
    }
    super.channelRead(ctx, msg);
  }

  /**
   * The {@code 100 Continue} of a request that announced its body with {@code Expect:
   * 100-continue}, passed on as a message in the request's place, so that it is written only once
   * every request before it has been answered: an interim answer written earlier would be read as
   * one to the request still being decided. Event loop only.
   */
  static final class Continue {
    private final ChannelHandlerContext context;

    private Continue(ChannelHandlerContext context) {
      this.context = context;
    }

    /** Writes {@code 100 Continue}: the client may send the body now. */
    void send() {
      var unused =
          context.writeAndFlush(
              new DefaultFullHttpResponse(
                  HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE, Unpooled.EMPTY_BUFFER));
    }
  }

  /**
   * A closing answer (413 or 417; 401 or 403 of the router) to a request that will never be
   * decided, passed on as a message in the request's place: the connection reads no further
   * request. Event loop only.
   */
  static final class Refusal {
    private final ChannelHandlerContext context;
    private final HttpResponseStatus status;
    private final String message;
    private final String[] headers;

    private Refusal(
        ChannelHandlerContext context,
        HttpResponseStatus status,
        String message,
        String... headers) {
      this.context = context;
      this.status = status;
      this.message = message;
      this.headers = headers;
    }

    /**
     * A refusal with {@code status} and {@code {"error": message}} of the request now arriving on
     * the connection of {@code context}, to be sent in its turn.
     */
    static Refusal of(ChannelHandlerContext context, HttpResponseStatus status, String message) {
      return new Refusal(context, status, message);
    }

    /**
     * Writes the refusal's answer with {@code Connection: close} (it was counted when recognised),
     * and reads and drops what the client still sends for a second, then closes, so that closing
     * with unread bytes does not reset the connection before the client has read the answer.
     */
    void send() {
      byte[] body = Json.error(message);
      FullHttpResponse response =
          new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(body));
      for (int i = 0; i + 1 < headers.length; i += 2) {
        response.headers().set(headers[i], headers[i + 1]);
      }
      response.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
      response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
      response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
      var unused = context.writeAndFlush(response);
      context.channel().config().setAutoRead(true);
      var unusedClose = context.executor().schedule(() -> close(context), 1, TimeUnit.SECONDS);
    }

    private static void close(ChannelHandlerContext ctx) {
      var unused = ctx.close();
    }
  }
}
