package io.slidingwindow.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.slidingwindow.Decision;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimitListener;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.testkit.FakeTicker;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link GrpcKeyResolver#context} on values whose {@code toString} names the instance: an array is
 * keyed by its elements, and a value of a class without a {@code toString} of its own counts under
 * the client's address, never under a key of its own per call.
 */
class GrpcContextKeyValuesTest {

  private static final Metadata.Key<String> USER =
      Metadata.Key.of("user", Metadata.ASCII_STRING_MARSHALLER);

  /**
   * What an authenticating interceptor might put in the context: no {@code toString} of its own.
   */
  static final class Account {
    final String name;

    Account(String name) {
      this.name = name;
    }
  }

  private final FakeTicker ticker = new FakeTicker();
  private final List<String> events = Collections.synchronizedList(new ArrayList<>());
  private final List<EchoServer> servers = new ArrayList<>();

  @AfterEach
  void close() {
    servers.forEach(EchoServer::close);
  }

  /**
   * A server whose {@code test.Echo/Say} allows one call an hour a key, keyed on the context value
   * that an earlier interceptor makes of the {@code user} entry with {@code value}.
   */
  private <T> EchoServer server(Function<String, T> value) {
    Context.Key<T> key = Context.key("user");
    ServerInterceptor authenticate =
        new ServerInterceptor() {
          @Override
          public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
              ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
            String name = headers.get(USER);
            Context context =
                name == null
                    ? Context.current()
                    : Context.current().withValue(key, value.apply(name));
            return Contexts.interceptCall(context, call, headers, next);
          }
        };
    RateLimitListener listener =
        new RateLimitListener() {
          @Override
          public void onAllowed(HttpRule rule, Decision decision) {
            events.add("allowed");
          }

          @Override
          public void onRefused(HttpRule rule, Decision decision, boolean dryRun) {
            events.add("refused");
          }

          @Override
          public void onError(HttpRule rule, RuntimeException error) {
            events.add("error " + error.getClass().getSimpleName());
          }
        };
    RateLimitServerInterceptor limits =
        RateLimitServerInterceptor.builder()
            .limiterFactory(RateLimiterFactory.inMemory(ticker, 1_000))
            .listener(listener)
            .rule(
                GrpcRateLimitRule.builder("say")
                    .method("test.Echo/Say")
                    .limit("1/1h")
                    .key(GrpcKeyResolver.context(key, ClientAddressesFor.direct()))
                    .build())
            .build();
    EchoServer server = EchoServer.start(authenticate, limits);
    servers.add(server);
    return server;
  }

  private static String as(EchoServer server, String user, String text) {
    return server.call(EchoServer.SAY, text, Map.of("user", user));
  }

  private static void assertRefused(Runnable call) {
    assertThatThrownBy(call::run)
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED));
  }

  @Test
  void contextKey_identityToStringValue_countsUnderTheClientAddress_secondCallRefused() {
    EchoServer server = server(Account::new);

    assertThat(as(server, "ann", "a")).isEqualTo("hello a");

    assertRefused(() -> as(server, "bob", "b"));
    assertRefused(() -> server.say("anonymous"));
    assertThat(server.received).containsExactly("Say:a");
    assertThat(events)
        .containsExactly(
            "error KeyRejectedException",
            "allowed",
            "error KeyRejectedException",
            "refused",
            "refused");
  }

  @Test
  void contextKey_arrayValue_keyedByItsElements() {
    EchoServer server = server(name -> name.split(","));

    assertThat(as(server, "ann,admin", "a")).isEqualTo("hello a");
    assertRefused(() -> as(server, "ann,admin", "a again"));
    assertThat(as(server, "bob", "b")).as("another array, another key").isEqualTo("hello b");
    assertThat(server.say("anonymous"))
        .as("the address has a key of its own")
        .isEqualTo("hello anonymous");
    assertThat(events).containsExactly("allowed", "refused", "allowed", "allowed");
  }
}
