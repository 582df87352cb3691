package io.slidingwindow.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.StringValue;
import io.grpc.ClientInterceptors;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.http.RequestKey;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.testkit.RecordingLimiter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A metadata entry sent more than once: a rule keyed on it must key on the value the application
 * reads with {@code headers.get(key)} (grpc-java's {@code Metadata.get}, the last value), or a
 * client sends the key the application authenticates plus another value that changes on every call
 * and lands each call in a fresh window.
 */
class GrpcRepeatedMetadataTest {

  private static final Metadata.Key<String> API_KEY =
      Metadata.Key.of("x-api-key", Metadata.ASCII_STRING_MARSHALLER);

  @RegisterExtension final Started started = new Started();

  private final FakeTicker ticker = new FakeTicker();
  private final ConcurrentLinkedQueue<String> stored = new ConcurrentLinkedQueue<>();

  /** What the application's check read with {@code headers.get(API_KEY)}, one per call. */
  private final ConcurrentLinkedQueue<String> seen = new ConcurrentLinkedQueue<>();

  /** The in-memory backend, recording every key it is asked for. */
  private RateLimiterFactory recording() {
    RateLimiterFactory memory = RateLimiterFactory.inMemory(ticker, 10_000);
    return (name, limits, countRefused) ->
        new RecordingLimiter(memory.create(name, limits, countRefused), stored);
  }

  /**
   * A server whose {@code test.Echo/Say} allows 2 calls in 10 s per {@code x-api-key}, behind the
   * limit an application check that reads the entry as grpc-java applications do and lets only
   * {@code valid} through.
   */
  private EchoServer server() {
    ServerInterceptor limit =
        RateLimitServerInterceptor.builder()
            .limiterFactory(recording())
            .clientAddresses(ClientAddressesFor.direct())
            .rule(
                GrpcRateLimitRule.builder("say")
                    .method("test.Echo/Say")
                    .limit("2/10s")
                    .key(GrpcKeyResolver.metadata("x-api-key", ClientAddressesFor.direct()))
                    .build())
            .build();
    ServerInterceptor authenticate =
        new ServerInterceptor() {
          @Override
          public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
              ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
            String key = headers.get(API_KEY);
            seen.add(String.valueOf(key));
            if ("valid".equals(key)) {
              return next.startCall(call, headers);
            }
            call.close(Status.UNAUTHENTICATED.withDescription("unknown key"), new Metadata());
            return new ServerCall.Listener<>() {};
          }
        };
    return started.server(limit, authenticate);
  }

  /** Calls {@code test.Echo/Say} with one {@code x-api-key} entry per value, in order. */
  private static Status.Code say(EchoServer server, String... values) {
    Metadata headers = new Metadata();
    for (String value : values) {
      headers.put(API_KEY, value);
    }
    try {
      ClientCalls.blockingUnaryCall(
          ClientInterceptors.intercept(
              server.channel(), MetadataUtils.newAttachHeadersInterceptor(headers)),
          EchoServer.SAY,
          EchoServer.options(),
          StringValue.of("hi"));
      return Status.Code.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode();
    }
  }

  @Test
  void theValidKeyLastWithARotatingFirstValue_getsTheLimitOnce() {
    EchoServer server = server();
    List<Status.Code> codes = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      codes.add(say(server, "junk-" + i, "valid"));
    }
    codes.add(say(server, "valid"));

    assertThat(codes)
        .as("2/10s for the key the application authenticated, whatever the first value; then once")
        .containsExactly(
            Status.Code.OK,
            Status.Code.OK,
            Status.Code.RESOURCE_EXHAUSTED,
            Status.Code.RESOURCE_EXHAUSTED,
            Status.Code.RESOURCE_EXHAUSTED,
            Status.Code.RESOURCE_EXHAUSTED,
            Status.Code.RESOURCE_EXHAUSTED,
            Status.Code.RESOURCE_EXHAUSTED,
            Status.Code.RESOURCE_EXHAUSTED,
            Status.Code.RESOURCE_EXHAUSTED,
            Status.Code.RESOURCE_EXHAUSTED);
    assertThat(seen).containsExactly("valid", "valid");
    assertThat(server.received).containsExactly("Say:hi", "Say:hi");
  }

  @Test
  void theValidKeyFirstWithARotatingLastValue_theApplicationReadsTheRotatingValueToo() {
    EchoServer server = server();
    List<Status.Code> codes = new ArrayList<>();
    List<String> rotated = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      codes.add(say(server, "valid", "junk-" + i));
      rotated.add("junk-" + i);
    }

    assertThat(codes)
        .as("each call is keyed on its new value, which the application refuses")
        .containsOnly(Status.Code.UNAUTHENTICATED)
        .hasSize(10);
    assertThat(seen).containsExactlyElementsOf(rotated);
    assertThat(stored)
        .containsExactlyElementsOf(
            rotated.stream().map(value -> RequestKey.header("x-api-key", value).value()).toList());
    assertThat(server.received).isEmpty();
    assertThat(say(server, "valid"))
        .as("the valid key's window was never used by those calls")
        .isEqualTo(Status.Code.OK);
  }

  /** Entries as sent, and what {@code headers.get} reads from them: the last, commas and all. */
  private record Shape(List<String> values, String read) {}

  @Test
  void theKeyIsWhatTheApplicationRead_forRepeatedEntriesAndCommas() {
    EchoServer server = server();
    List<Shape> shapes =
        List.of(
            new Shape(List.of("valid", "junk"), "junk"),
            new Shape(List.of("junk", "valid"), "valid"),
            new Shape(List.of("valid, junk"), "valid, junk"),
            new Shape(List.of("junk", "valid,junk"), "valid,junk"),
            new Shape(List.of("a", "b", "valid"), "valid"),
            new Shape(List.of("valid", ""), ""));
    for (Shape shape : shapes) {
      seen.clear();
      stored.clear();
      ticker.advance(Duration.ofMinutes(1));
      Status.Code code = say(server, shape.values().toArray(String[]::new));

      assertThat(seen).as("headers.get of %s", shape.values()).containsExactly(shape.read());
      assertThat(stored)
          .as("the key of %s", shape.values())
          .containsExactly(
              shape.read().isEmpty()
                  ? "ip:127.0.0.1" // a blank last value is no key, to the application as here
                  : RequestKey.header("x-api-key", shape.read()).value());
      assertThat(code)
          .as("%s", shape.values())
          .isEqualTo(shape.read().equals("valid") ? Status.Code.OK : Status.Code.UNAUTHENTICATED);
    }
  }
}
