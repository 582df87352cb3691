package io.slidingwindow.server.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One HTTP request and its answer. The request's body is read while the exchange is open; {@link
 * #respond} answers exactly once, from any thread (Netty writes on the connection's event loop),
 * and releases the request. Thread-safe.
 */
public final class Exchange {

  private final ChannelHandlerContext context;
  private final FullHttpRequest request;
  private final RequestTarget target;
  private final boolean keepAlive;
  private final Runnable onDone;
  private final AtomicBoolean answered = new AtomicBoolean();

  Exchange(
      ChannelHandlerContext context,
      FullHttpRequest request,
      RequestTarget target,
      Runnable onDone) {
    this.context = context;
    this.request = request;
    this.target = target;
    this.keepAlive = HttpUtil.isKeepAlive(request);
    this.onDone = onDone;
  }

  /**
   * An exchange of a request of which only {@code head} has come, to be told about, never answered
   * (its answer goes another way).
   */
  static Exchange ofHead(ChannelHandlerContext context, HttpRequest head) {
    return new Exchange(
        context,
        new DefaultFullHttpRequest(
            head.protocolVersion(),
            head.method(),
            head.uri(),
            Unpooled.EMPTY_BUFFER,
            head.headers(),
            EmptyHttpHeaders.INSTANCE),
        RequestTarget.of(head.uri()),
        () -> {});
  }

  /** The request line's method, such as {@code GET}. */
  public String method() {
    return request.method().name();
  }

  /**
   * The path, without the query: of the origin-form target or of the absolute-form's URI; null for
   * a target that is not served ({@link RequestTarget}).
   */
  public String path() {
    return target.path();
  }

  /** Why the request's target is not served, or null if it is. */
  String targetProblem() {
    return target.problem();
  }

  /**
   * The host the request is for: the authority of an absolute-form target, which RFC 9112 §3.2.2
   * puts before the {@code Host} header, else that header; null if neither.
   */
  public String host() {
    return target.host(request.headers().get(HttpHeaderNames.HOST));
  }

  /** The client's address, as text (without the port), or empty if unknown. */
  public String clientAddress() {
    return context.channel().remoteAddress() instanceof InetSocketAddress address
        ? address.getHostString()
        : "";
  }

  /** A request header, or null. */
  public String header(CharSequence name) {
    return request.headers().get(name);
  }

  /** Whether the request carries a header named {@code name} (in any case). */
  public boolean hasHeader(CharSequence name) {
    return request.headers().contains(name);
  }

  /** The body; valid until {@link #respond}. */
  public ByteBuf body() {
    return request.content();
  }

  /** Answers with {@code body} as UTF-8. */
  public void respond(int status, String contentType, String body, String... headers) {
    respond(status, contentType, body.getBytes(StandardCharsets.UTF_8), headers);
  }

  /**
   * Answers {@code status} with {@code body} and header name/value pairs; the connection stays open
   * if the client asked for it. Only the first call answers.
   */
  public void respond(int status, String contentType, byte[] body, String... headers) {
    if (!answered.compareAndSet(false, true)) {
      return;
    }
    try {
      FullHttpResponse response =
          new DefaultFullHttpResponse(
              HttpVersion.HTTP_1_1,
              HttpResponseStatus.valueOf(status),
              Unpooled.wrappedBuffer(body));
      response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
      response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
      for (int i = 0; i + 1 < headers.length; i += 2) {
        response.headers().set(headers[i], headers[i + 1]);
      }
      if (keepAlive) {
        if (!request.protocolVersion().isKeepAliveDefault()) {
          response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
        }
        var unused = context.writeAndFlush(response, context.voidPromise());
      } else {
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        context.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
      }
    } finally {
      request.release();
      onDone.run();
    }
  }

  /** Answers {@code {"error": message}} with {@code status}. */
  public void fail(int status, String message, String... headers) {
    respond(status, "application/json", Json.error(message), headers);
  }
}
