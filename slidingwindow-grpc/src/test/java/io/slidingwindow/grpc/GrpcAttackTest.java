package io.slidingwindow.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.slidingwindow.LimiterKeys;
import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.http.RequestKey;
import io.slidingwindow.testkit.FakeTicker;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The ways a client could try to walk around a gRPC rule: other spellings of the method, rotated
 * and forged keys, forwarded addresses, long keys. Each case starts a real server on loopback.
 */
class GrpcAttackTest {

  private final FakeTicker ticker = new FakeTicker();
  private final List<AutoCloseable> resources = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable resource : resources) {
      resource.close();
    }
  }

  private EchoServer server(GrpcKeyResolver key, ServerInterceptor... outer) {
    return serverOn(
        RateLimiterFactory.inMemory(ticker, 10_000), key, ClientAddressesFor.direct(), outer);
  }

  private EchoServer serverOn(
      RateLimiterFactory limiters,
      GrpcKeyResolver key,
      ClientAddresses clients,
      ServerInterceptor... outer) {
    ServerInterceptor limit =
        RateLimitServerInterceptor.builder()
            .limiterFactory(limiters)
            .clientAddresses(clients)
            .rule(
                GrpcRateLimitRule.builder("say")
                    .method("test.Echo/Say")
                    .limit("2/10s")
                    .key(key)
                    .build())
            .build();
    List<ServerInterceptor> all = new ArrayList<>(List.of(outer));
    all.add(limit);
    EchoServer server = EchoServer.start(all.toArray(ServerInterceptor[]::new));
    resources.add(server);
    return server;
  }

  private static Status.Code code(Runnable call) {
    try {
      call.run();
      return Status.Code.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode();
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "test.Echo/Say/",
        "test.Echo//Say",
        "/test.Echo/Say",
        "test.echo/Say",
        "test.Echo/say",
        "test.Echo/./Say",
        "test.Echo/../Echo/Say",
        "test.Echo/Say%20",
        "test.Echo/Sa%79",
        "test.Echo/Say;x=1",
        "test.Echo/Say?x=1",
        "test.Echo\\Say",
        "test.Echo/Say "
      })
  void methodSpelling_otherThanTheRegisteredName_neverReachesTheHandlerUncounted(String name) {
    EchoServer server = server(GrpcKeyResolver.peerAddress(ClientAddressesFor.direct()));
    server.say("1");
    server.say("2");

    Status.Code spelled = code(() -> server.call(EchoServer.method(name, false), "x", Map.of()));

    assertThat(spelled).isIn(Status.Code.UNIMPLEMENTED, Status.Code.RESOURCE_EXHAUSTED);
    assertThat(server.received).containsExactly("Say:1", "Say:2");
  }

  @Test
  void forwardedFor_fromAnUntrustedPeer_ignored() {
    EchoServer server = server(GrpcKeyResolver.peerAddress(ClientAddressesFor.direct()));
    server.call(EchoServer.SAY, "1", Map.of("x-forwarded-for", "203.0.113.1"));
    server.call(EchoServer.SAY, "2", Map.of("x-forwarded-for", "203.0.113.2"));

    for (int i = 3; i < 8; i++) {
      String hop = "203.0.113." + i;
      assertThat(code(() -> server.call(EchoServer.SAY, "n", Map.of("x-forwarded-for", hop))))
          .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    }
  }

  @Test
  void forwardedFor_behindATrustedProxy_keysTheClient_ipv6ByItsPrefix() {
    EchoServer server =
        server(GrpcKeyResolver.peerAddress(ClientAddressesFor.behindLoopbackProxy()));
    server.call(EchoServer.SAY, "1", Map.of("x-forwarded-for", "2001:db8:1:2::1"));
    server.call(EchoServer.SAY, "2", Map.of("x-forwarded-for", "2001:db8:1:2::2"));

    assertThat(
            code(
                () ->
                    server.call(
                        EchoServer.SAY, "3", Map.of("x-forwarded-for", "2001:db8:1:2:ffff::9"))))
        .as("another address of the same /64")
        .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(
            code(
                () ->
                    server.call(
                        EchoServer.SAY,
                        "4",
                        Map.of("x-forwarded-for", "2001:db8:1:2::1, 198.51.100.7"))))
        .as("a forged left-most hop does not choose the key")
        .isEqualTo(Status.Code.OK);
    server.call(EchoServer.SAY, "5", Map.of("x-forwarded-for", "198.51.100.7"));
    assertThat(
            code(
                () ->
                    server.call(
                        EchoServer.SAY, "6", Map.of("x-forwarded-for", "::ffff:198.51.100.7"))))
        .as("an IPv4-mapped address is the IPv4 address")
        .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
  }

  @Test
  void metadataValue_spellingAnAddress_neverSharesTheAddressWindow() {
    EchoServer server = server(GrpcKeyResolver.metadata("x-api-key", ClientAddressesFor.direct()));
    server.say("1");
    server.say("2");
    assertThat(code(() -> server.say("3"))).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);

    for (String forged : List.of("127.0.0.1", "ip:127.0.0.1", "ip%3A127.0.0.1")) {
      assertThat(code(() -> server.call(EchoServer.SAY, "f", Map.of("x-api-key", forged))))
          .as(forged)
          .isEqualTo(Status.Code.OK);
    }
  }

  @Test
  void rotatedUnknownKeys_checkedByAnEarlierInterceptor_gainNothing() {
    Context.Key<String> tenant = Context.key("tenant");
    Metadata.Key<String> apiKey = Metadata.Key.of("x-api-key", Metadata.ASCII_STRING_MARSHALLER);
    Set<String> issued = Set.of("key-1", "key-2");
    ServerInterceptor checkKeys =
        new ServerInterceptor() {
          @Override
          public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
              ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
            String key = headers.get(apiKey);
            Context context =
                key != null && issued.contains(key)
                    ? Context.current().withValue(tenant, key)
                    : Context.current();
            return Contexts.interceptCall(context, call, headers, next);
          }
        };
    EchoServer server =
        server(GrpcKeyResolver.context(tenant, ClientAddressesFor.direct()), checkKeys);

    int granted = 0;
    for (int i = 0; i < 50; i++) {
      String rotated = "guess-" + i;
      if (code(() -> server.call(EchoServer.SAY, "r", Map.of("x-api-key", rotated)))
          == Status.Code.OK) {
        granted++;
      }
    }
    assertThat(granted).as("unknown keys fall back to the one client address").isEqualTo(2);
    assertThat(code(() -> server.call(EchoServer.SAY, "k", Map.of("x-api-key", "key-1"))))
        .isEqualTo(Status.Code.OK);
  }

  @Test
  void newKeysOfOneClient_fillOnlyItsShareOfTheKeyTable_behindATrustedProxy() {
    EchoServer server =
        serverOn(
            RateLimiterFactory.inMemory(ticker, 100, 2),
            GrpcKeyResolver.metadata("x-api-key", ClientAddressesFor.behindLoopbackProxy()),
            ClientAddressesFor.behindLoopbackProxy());
    Map<String, String> flooder = Map.of("x-forwarded-for", "198.51.100.1");

    for (String key : List.of("k1", "k2")) {
      server.call(EchoServer.SAY, key, with(flooder, "x-api-key", key));
    }
    Status.Code third =
        code(() -> server.call(EchoServer.SAY, "k3", with(flooder, "x-api-key", "k3")));

    assertThat(third)
        .as("a third new key of the same client")
        .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(code(() -> server.call(EchoServer.SAY, "own", flooder)))
        .as("the client's own address key is exempt from its share")
        .isEqualTo(Status.Code.OK);
    assertThat(
            code(
                () ->
                    server.call(
                        EchoServer.SAY,
                        "k4",
                        Map.of("x-forwarded-for", "198.51.100.2", "x-api-key", "k4"))))
        .as("another client behind the same proxy has a share of its own")
        .isEqualTo(Status.Code.OK);
  }

  private static Map<String, String> with(Map<String, String> headers, String name, String value) {
    Map<String, String> all = new java.util.HashMap<>(headers);
    all.put(name, value);
    return all;
  }

  @Test
  void longKeys_storedBounded_andStillCounted() {
    RemoteLimiters recording = new RemoteLimiters(ticker);
    resources.add(recording);
    EchoServer server =
        serverOn(
            recording,
            GrpcKeyResolver.metadata("x-api-key", ClientAddressesFor.direct()),
            ClientAddressesFor.direct());
    String longKey = "k".repeat(6_000);

    server.call(EchoServer.SAY, "1", Map.of("x-api-key", longKey));
    server.call(EchoServer.SAY, "2", Map.of("x-api-key", longKey));
    Status.Code third = code(() -> server.call(EchoServer.SAY, "3", Map.of("x-api-key", longKey)));
    Status.Code other =
        code(() -> server.call(EchoServer.SAY, "4", Map.of("x-api-key", longKey + "x")));

    assertThat(third).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(other).isEqualTo(Status.Code.OK);
    assertThat(recording.keys)
        .hasSize(4)
        .allSatisfy(key -> assertThat(key).hasSizeLessThanOrEqualTo(LimiterKeys.MAX_CHARS))
        .allSatisfy(key -> assertThat(key).startsWith(LimiterKeys.DIGEST_PREFIX));
  }

  /**
   * A resolver that cannot cope with what the client sent in a way no {@code catch
   * (RuntimeException)} sees (a recursive parser of nested input overflowing its stack), on a rule
   * decided after a remote backend's decision: the call must not go on as if no rule applied.
   */
  @Test
  void keyResolverError_afterARemoteDecision_neverLetsTheCallThrough() {
    RemoteLimiters remote = new RemoteLimiters(ticker);
    resources.add(remote);
    Metadata.Key<String> nested = Metadata.Key.of("x-nested", Metadata.ASCII_STRING_MARSHALLER);
    ServerInterceptor limit =
        RateLimitServerInterceptor.builder()
            .limiterFactory(remote)
            .rule(GrpcRateLimitRule.builder("all").method("test.Echo/*").limit("100/10s").build())
            .rule(
                GrpcRateLimitRule.builder("say")
                    .method("test.Echo/Say")
                    .limit("2/10s")
                    .key(
                        (call, headers, context) -> {
                          if (headers.get(nested) != null) {
                            throw new StackOverflowError("nested too deep");
                          }
                          return RequestKey.global();
                        })
                    .build())
            .build();
    EchoServer server = EchoServer.start(limit);
    resources.add(server);

    List<Status.Code> codes = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      codes.add(code(() -> server.call(EchoServer.SAY, "n", Map.of("x-nested", "[[[[["))));
    }

    assertThat(codes).as("each call ended before its handler").containsOnly(Status.Code.UNKNOWN);
    assertThat(server.received).isEmpty();
  }

  /**
   * Streams that send no message at all, under a rule that counts messages: each still reaches its
   * handler (an upload answered, a subscription opened), so each must count.
   */
  @ParameterizedTest
  @ValueSource(strings = {"test.Echo/Upload", "test.Echo/Chat"})
  void perMessage_streamsThatSendNoMessage_stillCountOnceEach(String method) {
    ServerInterceptor limit =
        RateLimitServerInterceptor.builder()
            .limiterFactory(RateLimiterFactory.inMemory(ticker, 10_000))
            .rule(
                GrpcRateLimitRule.builder("streams")
                    .method("test.Echo/*")
                    .limit("2/10s")
                    .perMessage()
                    .build())
            .build();
    EchoServer server = EchoServer.start(limit);
    resources.add(server);
    var descriptor = method.endsWith("Upload") ? EchoServer.UPLOAD : EchoServer.CHAT;

    List<Status.Code> codes = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      codes.add(server.stream(descriptor, List.of(), Map.of()).status().getCode());
    }

    assertThat(codes)
        .as("empty streams past a limit of 2")
        .containsExactly(
            Status.Code.OK,
            Status.Code.OK,
            Status.Code.RESOURCE_EXHAUSTED,
            Status.Code.RESOURCE_EXHAUSTED,
            Status.Code.RESOURCE_EXHAUSTED);
  }
}
