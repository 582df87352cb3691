package io.slidingwindow.server.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.CombinedChannelDuplexHandler;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpLineException;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;

/**
 * The HTTP/1.1 server codec (a request line up to 4 KiB, headers up to 8 KiB, chunks read 8 KiB at
 * a time, a chunk size line over 4 KiB malformed rather than a request line too long; an answer to
 * {@code HEAD} without its body; a request whose body's length is ambiguous refused as malformed,
 * see {@link Requests#isContentAlwaysEmpty}), which also tells whether a request has begun to
 * arrive and is not yet whole: {@link ReadTimeout} asks it after each read, as the bytes that end
 * one request can begin the next, and that one's clock starts with them. Netty's own server codec
 * keeps that to itself. One per connection, used on its event loop only.
 */
final class HttpCodec extends CombinedChannelDuplexHandler<HttpCodec.Requests, HttpCodec.Answers> {

  /** The methods of the requests read and not yet answered, in order. */
  private final Queue<HttpMethod> methods = new ArrayDeque<>();

  /** Whether the last request read was whole, and nothing of another has come since. */
  private boolean between = true;

  HttpCodec() {
    init(new Requests(), new Answers());
  }

  /**
   * Whether some of a request has come (more than the blank lines a client may send between
   * requests) and the request is not yet whole.
   */
  boolean midRequest() {
    return !between;
  }

  /** Reads requests, noting their methods and whether one is part way. */
  final class Requests extends HttpRequestDecoder {
    private Requests() {
      super(
          new HttpDecoderConfig()
              .setMaxInitialLineLength(4096)
              .setMaxHeaderSize(8192)
              .setMaxChunkSize(8192));
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf buffer, List<Object> out)
        throws Exception {
      int from = buffer.readerIndex();
      int before = out.size();
      super.decode(ctx, buffer, out);
      int after = out.size();
      for (int i = before; i < after; i++) {
        if (out.get(i) instanceof HttpRequest request) {
          methods.add(request.method());
        } else if (out.get(i) instanceof HttpContent chunk
            && chunk.decoderResult().cause() instanceof TooLongHttpLineException) {
          // A chunk's size line, which Netty reads with the request line's bound: malformed (400),
          // not a request line too long (414).
          chunk.setDecoderResult(
              DecoderResult.failure(
                  new IllegalArgumentException("a chunk size line over 4096 bytes")));
        }
      }
      if (after > before && out.get(after - 1) instanceof LastHttpContent) {
        between = true; // the decoder returns once a request is whole
      } else if (after > before || buffer.isReadable() || !blank(buffer, from)) {
        between = false; // a part of a request read, or a line of one waiting for its end
      }
    }

    /**
     * Refuses, as malformed (400, and the connection closes), a request whose body's length two
     * readers could take apart: {@code Transfer-Encoding} beside {@code Content-Length}, in
     * HTTP/1.0, or naming anything but {@code chunked} alone (a coding this port does not undo, or
     * chunked not last). Netty would read the first as chunked and keep the connection, and a proxy
     * in front going by {@code Content-Length} would take the rest of that body for a request of
     * its own, one it never saw: so a request could pass a proxy's checks hidden in another's body.
     * Called by the decoder once a request's headers are read.
     */
    @Override
    protected boolean isContentAlwaysEmpty(HttpMessage message) {
      HttpHeaders headers = message.headers();
      List<String> codings = headers.getAll(HttpHeaderNames.TRANSFER_ENCODING);
      if (!codings.isEmpty()) {
        if (headers.contains(HttpHeaderNames.CONTENT_LENGTH)) {
          throw new IllegalArgumentException("both Content-Length and Transfer-Encoding");
        }
        if (!message.protocolVersion().equals(HttpVersion.HTTP_1_1)) {
          throw new IllegalArgumentException("Transfer-Encoding in HTTP/1.0");
        }
        if (codings.size() != 1 || !"chunked".equalsIgnoreCase(codings.get(0).trim())) {
          throw new IllegalArgumentException("a Transfer-Encoding other than chunked alone");
        }
      }
      return super.isContentAlwaysEmpty(message);
    }

    /** Whether the bytes of {@code buffer} from {@code from} to its reader index are blank. */
    private static boolean blank(ByteBuf buffer, int from) {
      for (int i = from; i < buffer.readerIndex(); i++) {
        int c = buffer.getUnsignedByte(i);
        if (!Character.isISOControl(c) && !Character.isWhitespace(c)) {
          return false;
        }
      }
      return true;
    }
  }

  /** Writes answers; one to {@code HEAD} without its body, as Netty's server codec does. */
  final class Answers extends HttpResponseEncoder {
    private Answers() {}

    @Override
    protected boolean isContentAlwaysEmpty(HttpResponse msg) {
      HttpMethod method = methods.poll();
      return HttpMethod.HEAD.equals(method) || super.isContentAlwaysEmpty(msg);
    }
  }
}
