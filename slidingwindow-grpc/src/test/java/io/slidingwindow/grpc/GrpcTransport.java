package io.slidingwindow.grpc;

import com.google.protobuf.StringValue;
import io.grpc.CallOptions;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.slidingwindow.testkit.http.RawHttp;
import io.slidingwindow.testkit.http.Transport;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The attack table's requests as unary gRPC calls, each on a channel of its own from the client's
 * loopback address: the target {@code /limited/a} is the method {@code limited/a}, each header a
 * metadata entry (its name in lower case), and the answer is told in the terms of HTTP (OK is 200
 * with the reply as body, RESOURCE_EXHAUSTED with {@code retry-after} is 429 with {@code
 * Retry-After}, UNIMPLEMENTED is 404).
 *
 * <p>gRPC routes by the full method name, exactly as sent, and has one request method (HTTP/2
 * POST); the attack on spellings sends spellings of the limited method's name, and the attack on
 * request methods does not apply.
 */
final class GrpcTransport implements Transport {

  /** Spellings of the method {@code limited/a} that a lenient reader might take for it. */
  static final List<String> SPELLINGS =
      List.of(
          "/limited/a/",
          "//limited/a",
          "/limited//a",
          "/LIMITED/a",
          "/Limited/a",
          "/limited/A",
          "/limited/./a",
          "/x/../limited/a",
          "/limited/x/../a",
          "/limited/%61",
          "/%6cimited/a",
          "/limited/a%20",
          "/limited/a ",
          "/limited/a;x=1",
          "/limited/a?x=1",
          "/limited\\a",
          "/limited%2Fa",
          "/limited/a/b",
          "/limited/a.json");

  @Override
  public RawHttp.Response send(
      InetAddress from, int port, String method, String target, List<String> headers) {
    Metadata metadata = new Metadata();
    for (int i = 0; i + 1 < headers.size(); i += 2) {
      metadata.put(
          Metadata.Key.of(
              headers.get(i).toLowerCase(Locale.ROOT), Metadata.ASCII_STRING_MARSHALLER),
          headers.get(i + 1));
    }
    String fullMethodName = target.startsWith("/") ? target.substring(1) : target;
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", port)
            .usePlaintext()
            .localSocketPicker(
                new NettyChannelBuilder.LocalSocketPicker() {
                  @Override
                  public InetSocketAddress createSocketAddress(
                      java.net.SocketAddress remote, io.grpc.Attributes attributes) {
                    return new InetSocketAddress(from, 0);
                  }
                })
            .build();
    try {
      String reply =
          ClientCalls.blockingUnaryCall(
                  ClientInterceptors.intercept(
                      channel, MetadataUtils.newAttachHeadersInterceptor(metadata)),
                  GrpcAttackTableTest.method(fullMethodName),
                  CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
                  StringValue.of("x"))
              .getValue();
      return new RawHttp.Response(200, "HTTP/1.1 200 OK (grpc OK)", reply);
    } catch (StatusRuntimeException e) {
      return answer(e);
    } finally {
      channel.shutdownNow();
      try {
        channel.awaitTermination(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static RawHttp.Response answer(StatusRuntimeException e) {
    Status status = e.getStatus();
    Metadata trailers = e.getTrailers() == null ? new Metadata() : e.getTrailers();
    String retryAfter = trailers.get(GrpcRefusals.RETRY_AFTER);
    int code =
        switch (status.getCode()) {
          case RESOURCE_EXHAUSTED -> retryAfter == null ? 431 : 429;
          case UNIMPLEMENTED -> 404;
          case INVALID_ARGUMENT -> 400;
          case UNAVAILABLE -> throw new IllegalStateException("no answer: " + status, e);
          default -> 500;
        };
    String head =
        "HTTP/1.1 "
            + code
            + " (grpc "
            + status.getCode()
            + ": "
            + status.getDescription()
            + ")"
            + (retryAfter == null ? "" : "\r\nRetry-After: " + retryAfter);
    return new RawHttp.Response(code, head, "");
  }

  @Override
  public String name() {
    return "gRPC";
  }

  @Override
  public String routedBy() {
    return "method name";
  }

  @Override
  public List<String> spellings() {
    return SPELLINGS;
  }

  @Override
  public List<String> methods() {
    return List.of();
  }
}
