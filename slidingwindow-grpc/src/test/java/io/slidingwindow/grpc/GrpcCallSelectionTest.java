package io.slidingwindow.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.StringValue;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.testkit.FakeTicker;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Which calls reach a rule, on real Netty servers and clients: calls to methods the server does not
 * have (never counted, so they spend no one's limit), one implementation registered under two
 * service names (a rule naming both gives them one window), requests that cannot be parsed (never a
 * guess, never a refund that opens more), and compressed messages (counted one by one, as the
 * handler sees them).
 */
class GrpcCallSelectionTest {

  @RegisterExtension final Started started = new Started();

  private final FakeTicker ticker = new FakeTicker();

  /** A server of {@code definitions}, the limiter set server-wide with {@code intercept}. */
  private int serverWide(RateLimitServerInterceptor limit, ServerServiceDefinition... services) {
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    for (ServerServiceDefinition service : services) {
      builder.addService(service);
    }
    try {
      Server server = builder.intercept(limit).build().start();
      started.add(() -> server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS));
      return server.getPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private ManagedChannel channel(int port) {
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    started.add(() -> channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS));
    return channel;
  }

  /** A service named {@code service} whose unary {@code Say} records each request in {@code to}. */
  private static ServerServiceDefinition say(String service, ConcurrentLinkedQueue<String> to) {
    return ServerServiceDefinition.builder(service)
        .addMethod(
            EchoServer.method(service + "/Say", false),
            ServerCalls.asyncUnaryCall(
                (request, response) -> {
                  to.add(service + ":" + request.getValue());
                  response.onNext(StringValue.of("hello"));
                  response.onCompleted();
                }))
        .build();
  }

  private static Status.Code call(
      ManagedChannel channel, MethodDescriptor<StringValue, StringValue> method) {
    try {
      ClientCalls.blockingUnaryCall(channel, method, EchoServer.options(), StringValue.of("x"));
      return Status.Code.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode();
    }
  }

  /**
   * A rule for every method ({@code *}), keyed on one window for all clients, set server-wide: the
   * calls to methods the server does not have end {@code UNIMPLEMENTED} before any interceptor
   * runs, so none takes a permit, and the window is whole for the method that exists.
   */
  @Test
  void unknownMethods_serverWideRuleForEveryMethod_neverCounted() {
    RateLimitServerInterceptor limit =
        RateLimitServerInterceptor.builder()
            .limiterFactory(RateLimiterFactory.inMemory(ticker, 1_000))
            .rule(
                GrpcRateLimitRule.builder("everything")
                    .method("*")
                    .limit("2/10s")
                    .key(GrpcKeyResolver.global())
                    .build())
            .build();
    ConcurrentLinkedQueue<String> received = new ConcurrentLinkedQueue<>();
    ManagedChannel channel = channel(serverWide(limit, say("test.Echo", received)));

    List<Status.Code> unknown = new ArrayList<>();
    for (String name :
        List.of("test.Echo/Nope", "test.Nope/Say", "test.echo/Say", "Nope/Nope", "test.Echo/")) {
      for (int i = 0; i < 4; i++) {
        unknown.add(call(channel, EchoServer.method(name, false)));
      }
    }
    MethodDescriptor<StringValue, StringValue> say = EchoServer.method("test.Echo/Say", false);
    List<Status.Code> known = List.of(call(channel, say), call(channel, say), call(channel, say));

    assertThat(unknown).hasSize(20).containsOnly(Status.Code.UNIMPLEMENTED);
    assertThat(known)
        .as("the one window, after 20 calls to methods the server does not have")
        .containsExactly(Status.Code.OK, Status.Code.OK, Status.Code.RESOURCE_EXHAUSTED);
    assertThat(received).hasSize(2);
  }

  /**
   * One implementation registered under two service names (a renamed package kept for old clients):
   * a rule that lists both names counts both in one window, so switching names gains nothing.
   */
  @Test
  void oneImplementationUnderTwoServiceNames_oneRuleNamingBoth_sharesOneWindow() {
    RateLimitServerInterceptor limit =
        RateLimitServerInterceptor.builder()
            .limiterFactory(RateLimiterFactory.inMemory(ticker, 1_000))
            .rule(
                GrpcRateLimitRule.builder("say")
                    .method("test.Echo/Say")
                    .method("test.v1.Echo/Say")
                    .limit("2/10s")
                    .build())
            .build();
    ConcurrentLinkedQueue<String> received = new ConcurrentLinkedQueue<>();
    ManagedChannel channel =
        channel(serverWide(limit, say("test.Echo", received), say("test.v1.Echo", received)));
    MethodDescriptor<StringValue, StringValue> old = EchoServer.method("test.Echo/Say", false);
    MethodDescriptor<StringValue, StringValue> renamed =
        EchoServer.method("test.v1.Echo/Say", false);

    List<Status.Code> codes =
        List.of(
            call(channel, old), call(channel, renamed), call(channel, old), call(channel, renamed));

    assertThat(codes)
        .containsExactly(
            Status.Code.OK,
            Status.Code.OK,
            Status.Code.RESOURCE_EXHAUSTED,
            Status.Code.RESOURCE_EXHAUSTED);
    assertThat(received).containsExactly("test.Echo:x", "test.v1.Echo:x");
  }

  /** {@code test.Auth/Login} sent bytes that are no {@code StringValue}. */
  private static final MethodDescriptor<byte[], StringValue> RAW_LOGIN =
      MethodDescriptor.<byte[], StringValue>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("test.Auth/Login")
          .setRequestMarshaller(
              new MethodDescriptor.Marshaller<byte[]>() {
                @Override
                public InputStream stream(byte[] value) {
                  return new ByteArrayInputStream(value);
                }

                @Override
                public byte[] parse(InputStream stream) {
                  throw new UnsupportedOperationException("requests only");
                }
              })
          .setResponseMarshaller(EchoServer.LOGIN.getResponseMarshaller())
          .build();

  /**
   * Logins that count only {@code UNAUTHENTICATED} (2 in 10 s), sent requests the server cannot
   * parse (field 1 with the wire type 7, which does not exist): gRPC ends each itself, past the
   * interceptors, before the handler sees a password. Such a call stays counted here (no code of
   * the application's settles it), the error toward counting; however it is settled, wrong
   * passwords after them reach the handler at most twice.
   */
  @Test
  void countCodes_requestsThatCannotBeParsed_neverAGuess_neverOpenMore() {
    EchoServer server =
        started.server(
            RateLimitServerInterceptor.builder()
                .limiterFactory(RateLimiterFactory.inMemory(ticker, 1_000))
                .rule(
                    GrpcRateLimitRule.builder("logins")
                        .method("test.Auth/Login")
                        .limit("2/10s")
                        .countCodes(Status.Code.UNAUTHENTICATED)
                        .build())
                .build());

    List<Status.Code> malformed = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      try {
        ClientCalls.blockingUnaryCall(
            server.channel(), RAW_LOGIN, EchoServer.options(), new byte[] {0x0F});
        malformed.add(Status.Code.OK);
      } catch (StatusRuntimeException e) {
        malformed.add(e.getStatus().getCode());
      }
    }
    List<Status.Code> wrong = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      wrong.add(server.login("bad", Map.of()));
    }

    assertThat(malformed).doesNotContain(Status.Code.OK);
    assertThat(wrong)
        .allMatch(
            code -> code == Status.Code.UNAUTHENTICATED || code == Status.Code.RESOURCE_EXHAUSTED);
    assertThat(wrong.stream().filter(code -> code == Status.Code.UNAUTHENTICATED).count())
        .isLessThanOrEqualTo(2);
    assertThat(server.received).as("only wrong passwords reached the handler").hasSizeBetween(0, 2);
  }

  /**
   * A client stream whose messages are sent gzip-compressed, under a rule counting 3 messages in 10
   * s: each message counts once, as the handler receives it decompressed, and the fourth ends the
   * stream.
   */
  @Test
  void perMessage_compressedMessages_countedOneByOne() throws Exception {
    EchoServer server =
        started.server(
            RateLimitServerInterceptor.builder()
                .limiterFactory(RateLimiterFactory.inMemory(ticker, 1_000))
                .rule(
                    GrpcRateLimitRule.builder("uploads")
                        .method("test.Echo/Upload")
                        .limit("3/10s")
                        .perMessage()
                        .build())
                .build());
    ClientCall<StringValue, StringValue> call =
        server.channel().newCall(EchoServer.UPLOAD, EchoServer.options().withCompression("gzip"));
    CompletableFuture<Status> end = new CompletableFuture<>();
    StreamObserver<StringValue> requests =
        ClientCalls.asyncClientStreamingCall(
            call, EchoServer.replies(reply -> {}, (status, trailers) -> end.complete(status)));
    for (int i = 0; i < 6; i++) {
      requests.onNext(StringValue.of("part " + i + " " + "z".repeat(4_000)));
    }
    requests.onCompleted();

    assertThat(end.get(20, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(server.received).hasSize(3);
  }
}
