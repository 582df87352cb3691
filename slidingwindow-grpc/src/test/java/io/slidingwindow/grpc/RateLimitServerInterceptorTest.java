package io.slidingwindow.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.StringValue;
import com.google.rpc.RetryInfo;
import io.grpc.CallOptions;
import io.grpc.ClientInterceptors;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.slidingwindow.Decision;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimitListener;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.testkit.FakeTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class RateLimitServerInterceptorTest {

  private final FakeTicker ticker = new FakeTicker();
  private final List<String> events = Collections.synchronizedList(new ArrayList<>());
  @RegisterExtension final Started started = new Started();

  private final RateLimitListener recorder =
      new RateLimitListener() {
        @Override
        public void onAllowed(HttpRule rule, Decision decision) {
          events.add("allowed " + rule.name());
        }

        @Override
        public void onRefused(HttpRule rule, Decision decision, boolean dryRun) {
          events.add("refused " + rule.name() + (dryRun ? " dry-run" : ""));
        }

        @Override
        public void onError(HttpRule rule, RuntimeException error) {
          events.add("error " + rule.name());
        }
      };

  private RateLimitServerInterceptor.Builder interceptor() {
    return RateLimitServerInterceptor.builder()
        .limiterFactory(RateLimiterFactory.inMemory(ticker, 1_000))
        .listener(recorder);
  }

  private EchoServer server(ServerInterceptor... interceptors) {
    return started.server(interceptors);
  }

  private static GrpcRateLimitRule.Builder rule(String name, String method, String limit) {
    return GrpcRateLimitRule.builder(name).method(method).limit(limit);
  }

  private static StatusRuntimeException refusal(Runnable call) {
    try {
      call.run();
    } catch (StatusRuntimeException e) {
      return e;
    }
    throw new AssertionError("the call was not refused");
  }

  @Test
  void unary_sixthCallInTenSeconds_refusedWithRetryInfoAndRetryAfter() {
    EchoServer server =
        server(interceptor().rule(rule("say", "test.Echo/Say", "5/10s").build()).build());
    for (int i = 0; i < 5; i++) {
      assertThat(server.say("n" + i)).isEqualTo("hello n" + i);
      ticker.advance(Duration.ofSeconds(1));
    }

    StatusRuntimeException refused = refusal(() -> server.say("six"));

    assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(refused.getStatus().getDescription())
        .isEqualTo("rate limit exceeded; retry after 6 seconds");
    assertThat(refused.getTrailers().get(GrpcRefusals.RETRY_AFTER)).isEqualTo("6");
    assertThat(refused.getTrailers().get(GrpcRefusals.RETRY_PUSHBACK_MS)).isEqualTo("6000");
    com.google.rpc.Status details = StatusProto.fromThrowable(refused);
    assertThat(details.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED.value());
    assertThat(details.getDetailsList()).hasSize(1);
    assertThat(details.getDetails(0).is(RetryInfo.class)).isTrue();
    assertThat(RetryDelays.of(refused)).contains(Duration.ofSeconds(6));
    assertThat(server.received).hasSize(5).doesNotContain("Say:six");
    assertThat(events)
        .containsExactly(
            "allowed say",
            "allowed say",
            "allowed say",
            "allowed say",
            "allowed say",
            "refused say");
  }

  @Test
  void unary_retryAtRetryInfosDelay_granted_oneSecondSooner_refused() {
    EchoServer server =
        server(interceptor().rule(rule("say", "test.Echo/Say", "2/10s").build()).build());
    server.say("a");
    ticker.advance(Duration.ofMillis(3300));
    server.say("b");
    Duration wait = RetryDelays.of(refusal(() -> server.say("c"))).orElseThrow();
    assertThat(wait)
        .as("10 s + one 10 ms bucket - 3.3 s, rounded up")
        .isEqualTo(Duration.ofSeconds(7));

    ticker.advance(wait.minusSeconds(1));
    assertThat(RetryDelays.of(refusal(() -> server.say("d")))).contains(Duration.ofSeconds(1));
    ticker.advance(Duration.ofSeconds(1));
    assertThat(server.say("e")).isEqualTo("hello e");
  }

  @Test
  void methods_notMatched_neverCounted() {
    EchoServer server =
        server(interceptor().rule(rule("say", "test.Echo/Say", "1/10s").build()).build());
    server.say("a");

    for (int i = 0; i < 5; i++) {
      assertThat(server.call(EchoServer.PING, "p", Map.of())).isEqualTo("pong");
    }
    assertThat(server.stream(EchoServer.CHAT, List.of("x", "y"), Map.of()).status().isOk())
        .isTrue();
  }

  @Test
  void wildcards_serviceAndEveryMethod_shareTheRulesWindow() {
    EchoServer server =
        server(
            interceptor()
                .rule(rule("echo", "test.Echo/*", "2/10s").build())
                .rule(GrpcRateLimitRule.builder("all").method("*").limit("4/10s").build())
                .build());
    server.say("a");
    assertThat(server.stream(EchoServer.CHAT, List.of("x"), Map.of()).status().isOk()).isTrue();

    assertThat(refusal(() -> server.say("b")).getStatus().getCode())
        .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    server.call(EchoServer.PING, "1", Map.of());
    server.call(EchoServer.PING, "2", Map.of());
    assertThat(refusal(() -> server.call(EchoServer.PING, "3", Map.of())).getStatus().getCode())
        .as("'*' counted the two echo calls, the refused one and two pings")
        .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
  }

  @Test
  void stream_perCall_countsOnceWhateverItSends() {
    EchoServer server =
        server(interceptor().rule(rule("chat", "test.Echo/Chat", "2/10s").build()).build());
    List<String> ten = IntStream.range(0, 10).mapToObj(i -> "m" + i).toList();

    assertThat(server.stream(EchoServer.CHAT, ten, Map.of()).replies()).hasSize(10);
    assertThat(server.stream(EchoServer.CHAT, ten, Map.of()).replies()).hasSize(10);
    EchoServer.Stream third = server.stream(EchoServer.CHAT, ten, Map.of());

    assertThat(third.status().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(third.replies()).isEmpty();
    assertThat(server.received).hasSize(20);
  }

  @Test
  void stream_perMessage_endsTheStreamAtTheFirstRefusedMessage() {
    EchoServer server =
        server(
            interceptor()
                .rule(rule("chat", "test.Echo/Chat", "3/10s").perMessage().build())
                .build());

    EchoServer.Stream stream =
        server.stream(EchoServer.CHAT, List.of("a", "b", "c", "d", "e"), Map.of());

    assertThat(stream.status().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(stream.trailers().get(GrpcRefusals.RETRY_AFTER))
        .as("10 s and one bucket of the default precision, rounded up")
        .isEqualTo("11");
    assertThat(stream.replies()).containsExactly("a", "b", "c");
    assertThat(server.received).containsExactly("Chat:a", "Chat:b", "Chat:c");
    EchoServer.Stream next = server.stream(EchoServer.CHAT, List.of("f"), Map.of());
    assertThat(next.status().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
  }

  @Test
  void clientStream_perMessage_countsEachMessage() {
    EchoServer server =
        server(
            interceptor()
                .rule(rule("upload", "test.Echo/Upload", "4/10s").perMessage().build())
                .build());

    assertThat(server.stream(EchoServer.UPLOAD, List.of("a", "b", "c"), Map.of()).replies())
        .containsExactly("3");
    EchoServer.Stream second = server.stream(EchoServer.UPLOAD, List.of("d", "e"), Map.of());

    assertThat(second.status().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(server.received).containsExactly("Upload:a", "Upload:b", "Upload:c", "Upload:d");
  }

  @Test
  void metadataKey_eachValueItsOwnWindow_missingFallsBackToTheAddress() {
    EchoServer server =
        server(
            interceptor()
                .rule(
                    rule("say", "test.Echo/Say", "1/10s")
                        .key(GrpcKeyResolver.metadata("x-api-key", ClientAddressesFor.direct()))
                        .build())
                .build());

    assertThat(server.call(EchoServer.SAY, "a", Map.of("x-api-key", "alpha"))).isNotNull();
    assertThat(server.call(EchoServer.SAY, "b", Map.of("x-api-key", "beta"))).isNotNull();
    assertThat(server.say("c")).isNotNull();
    assertThat(refusal(() -> server.say("d")).getStatus().getCode())
        .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(refusal(() -> server.call(EchoServer.SAY, "e", Map.of("x-api-key", "alpha"))))
        .isNotNull();
  }

  @Test
  void contextKey_valueFromAnEarlierInterceptor_keysTheCall() {
    Context.Key<String> user = Context.key("user");
    Metadata.Key<String> userHeader = Metadata.Key.of("user", Metadata.ASCII_STRING_MARSHALLER);
    ServerInterceptor authenticate =
        new ServerInterceptor() {
          @Override
          public <ReqT, RespT> io.grpc.ServerCall.Listener<ReqT> interceptCall(
              io.grpc.ServerCall<ReqT, RespT> call,
              Metadata headers,
              io.grpc.ServerCallHandler<ReqT, RespT> next) {
            String name = headers.get(userHeader);
            Context context =
                name == null ? Context.current() : Context.current().withValue(user, name);
            return Contexts.interceptCall(context, call, headers, next);
          }
        };
    EchoServer server =
        server(
            authenticate,
            interceptor()
                .rule(
                    rule("say", "test.Echo/Say", "1/10s")
                        .key(GrpcKeyResolver.context(user, ClientAddressesFor.direct()))
                        .build())
                .build());

    server.call(EchoServer.SAY, "a", Map.of("user", "ann"));
    server.call(EchoServer.SAY, "b", Map.of("user", "bob"));
    assertThat(refusal(() -> server.call(EchoServer.SAY, "c", Map.of("user", "ann")))).isNotNull();
    server.say("anonymous");
    assertThat(refusal(() -> server.say("anonymous again"))).isNotNull();
  }

  @Test
  void dryRun_wouldRefuse_letsThroughAndTells() {
    EchoServer server =
        server(
            interceptor().rule(rule("say", "test.Echo/Say", "1/10s").dryRun(true).build()).build());

    server.say("a");
    server.say("b");

    assertThat(server.received).hasSize(2);
    assertThat(events).containsExactly("allowed say", "refused say dry-run");
  }

  /**
   * Keys on {@code x-api-key}, else the peer's address; throws when {@code x-fault} says {@code
   * throw} and gives no key when it says {@code null}.
   */
  private static GrpcKeyResolver faultyKey() {
    GrpcKeyResolver apiKey = GrpcKeyResolver.metadata("x-api-key", ClientAddressesFor.direct());
    return (call, headers, context) -> {
      String fault = headers.get(key("x-fault"));
      if ("throw".equals(fault)) {
        throw new IllegalStateException("no key");
      }
      return "null".equals(fault) ? null : apiKey.key(call, headers, context);
    };
  }

  @Test
  void keyThatAlwaysThrows_sixthCallInTheWindow_refused() {
    EchoServer server =
        server(
            interceptor()
                .rule(
                    rule("say", "test.Echo/Say", "5/10s")
                        .key(
                            (call, headers, context) -> {
                              throw new IllegalStateException("no key");
                            })
                        .build())
                .build());
    for (int i = 1; i <= 5; i++) {
      assertThat(server.say("call " + i)).isEqualTo("hello call " + i);
    }

    StatusRuntimeException sixth = refusal(() -> server.say("call 6"));

    assertThat(sixth.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(server.received).hasSize(5);
    assertThat(events).filteredOn(event -> event.startsWith("error")).hasSize(6);
  }

  @Test
  void keyThatThrows_countsUnderTheClientAddress_andTellsTheListener() {
    EchoServer server =
        server(
            interceptor()
                .rule(rule("say", "test.Echo/Say", "2/10s").key(faultyKey()).build())
                .build());
    Map<String, String> throwing = Map.of("x-fault", "throw", "x-api-key", "alpha");

    server.call(EchoServer.SAY, "a", throwing);
    server.call(EchoServer.SAY, "b", Map.of("x-fault", "null"));
    StatusRuntimeException third = refusal(() -> server.call(EchoServer.SAY, "c", throwing));

    assertThat(third.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(refusal(() -> server.say("d")))
        .as("the address's window is the one the faulty keys spent")
        .isNotNull();
    assertThat(server.call(EchoServer.SAY, "e", Map.of("x-api-key", "alpha")))
        .as("the key the throwing calls carried has its own window, untouched")
        .isEqualTo("hello e");
    assertThat(server.received).containsExactly("Say:a", "Say:b", "Say:e");
    assertThat(events)
        .containsExactly(
            "error say",
            "allowed say",
            "error say",
            "allowed say",
            "error say",
            "refused say",
            "refused say",
            "allowed say");
  }

  @Test
  void keyThatThrows_afterTheAddressSpentItsLimit_refused() {
    EchoServer server =
        server(
            interceptor()
                .rule(rule("say", "test.Echo/Say", "2/10s").key(faultyKey()).build())
                .build());
    server.say("a");
    server.say("b");

    for (String fault : List.of("throw", "null", "throw")) {
      assertThat(
              refusal(() -> server.call(EchoServer.SAY, fault, Map.of("x-fault", fault)))
                  .getStatus()
                  .getCode())
          .as("x-fault: %s", fault)
          .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    }
    assertThat(server.received).containsExactly("Say:a", "Say:b");
  }

  @Test
  void keyThatThrows_behindATrustedProxy_countsUnderTheForwardedClient() {
    EchoServer server =
        server(
            interceptor()
                .clientAddresses(ClientAddressesFor.behindLoopbackProxy())
                .rule(rule("say", "test.Echo/Say", "1/10s").key(faultyKey()).build())
                .build());
    Map<String, String> first = Map.of("x-fault", "throw", "x-forwarded-for", "198.51.100.1");
    Map<String, String> second = Map.of("x-fault", "throw", "x-forwarded-for", "198.51.100.2");

    server.call(EchoServer.SAY, "1", first);
    server.call(EchoServer.SAY, "2", second);

    assertThat(refusal(() -> server.call(EchoServer.SAY, "1 again", first))).isNotNull();
    assertThat(refusal(() -> server.call(EchoServer.SAY, "2 again", second))).isNotNull();
    assertThat(server.received).containsExactly("Say:1", "Say:2");
  }

  @Test
  void rateLimitHeaders_onAGrantAndARefusal_sentAsMetadata() {
    EchoServer server =
        server(
            interceptor()
                .rateLimitHeaders(true)
                .rule(rule("say", "test.Echo/Say", "2/10s").build())
                .build());
    AtomicReference<Metadata> headers = new AtomicReference<>();
    AtomicReference<Metadata> trailers = new AtomicReference<>();
    ClientCalls.blockingUnaryCall(
        ClientInterceptors.intercept(
            server.channel(), MetadataUtils.newCaptureMetadataInterceptor(headers, trailers)),
        EchoServer.SAY,
        CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS),
        StringValue.of("a"));
    server.say("b");
    StatusRuntimeException refused = refusal(() -> server.say("c"));

    assertThat(headers.get().get(key("ratelimit-policy"))).isEqualTo("\"say\";q=2;w=10");
    assertThat(headers.get().get(key("ratelimit"))).isEqualTo("\"say\";r=1;t=11");
    assertThat(refused.getTrailers().get(key("ratelimit-policy"))).isEqualTo("\"say\";q=2;w=10");
    assertThat(refused.getTrailers().get(key("ratelimit"))).isEqualTo("\"say\";r=0;t=11");
    assertThat(server.call(EchoServer.PING, "p", Map.of())).isEqualTo("pong");
  }

  private static Metadata.Key<String> key(String name) {
    return Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER);
  }

  @Test
  void remoteBackend_onTheEventLoop_decidesWithoutBlockingAndGoesOnFromTheExecutor()
      throws Exception {
    RemoteLimiters remote = started.add(new RemoteLimiters(ticker));
    ExecutorService calls = started.executor("calls");
    EchoServer server =
        started.directServer(
            interceptor()
                .limiterFactory(remote)
                .executor(calls)
                .rule(rule("upload", "test.Echo/Upload", "5/10s").build())
                .rule(rule("chat", "test.Echo/Chat", "3/10s").perMessage().build())
                .build());

    assertThat(server.stream(EchoServer.UPLOAD, List.of("a", "b", "c"), Map.of()).replies())
        .containsExactly("3");
    EchoServer.Stream chat =
        server.stream(EchoServer.CHAT, List.of("1", "2", "3", "4", "5"), Map.of());

    assertThat(chat.replies()).containsExactly("1", "2", "3");
    assertThat(chat.status().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(server.received)
        .containsExactly("Upload:a", "Upload:b", "Upload:c", "Chat:1", "Chat:2", "Chat:3");
    assertThat(remote.callerThreads)
        .as("every decision was asked for on the event loop or after a decision, never blocking")
        .allSatisfy(thread -> assertThat(thread).matches("grpc-.*|calls"));
    assertThat(server.handlerThreads)
        .as(
            "a decision complete on arrival goes on where gRPC delivered it; a later one on the executor")
        .allSatisfy(thread -> assertThat(thread).matches("grpc-.*|calls"));
  }

  @Test
  void builder_badInput_namesTheParameter() {
    assertThatThrownBy(() -> GrpcRateLimitRule.builder("x").method("Say"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("method pattern");
    assertThatThrownBy(() -> GrpcRateLimitRule.builder("x").method("a/b/c"))
        .hasMessageContaining("method pattern");
    assertThatThrownBy(() -> GrpcRateLimitRule.builder("x").method("a.**/b"))
        .hasMessageContaining("method pattern");
    assertThatThrownBy(() -> GrpcRateLimitRule.builder("bad name")).hasMessageContaining("name");
    assertThatThrownBy(() -> GrpcRateLimitRule.builder("x").build()).hasMessageContaining("limit");
    assertThatThrownBy(
            () ->
                RateLimitServerInterceptor.builder()
                    .rule(rule("x", "a/b", "1/1s").build())
                    .rule(rule("x", "a/c", "1/1s").perMessage().build())
                    .build())
        .hasMessageContaining("'x' repeats");
    assertThatThrownBy(() -> GrpcKeyResolver.metadata("token-bin", ClientAddressesFor.direct()))
        .hasMessageContaining("metadata name");
  }
}
