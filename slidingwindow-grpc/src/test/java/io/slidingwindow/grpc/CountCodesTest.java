package io.slidingwindow.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.grpc.CallOptions;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Rules that count only some codes ({@link GrpcRateLimitRule.Builder#countCodes}) on a real Netty
 * server and client over loopback: {@code test.Auth/Login} answers OK for {@code good},
 * UNAUTHENTICATED for {@code bad}, throws for {@code throw}, and holds {@code hold} until the test
 * ends it.
 */
class CountCodesTest {

  private static final Duration BOUND = Duration.ofSeconds(20);

  private final ListenedLimits limits = new ListenedLimits();
  @RegisterExtension final Started started = new Started();

  private static GrpcRateLimitRule.Builder logins(String limit, Status.Code... codes) {
    return GrpcRateLimitRule.builder("logins")
        .method("test.Auth/Login")
        .limit(limit)
        .countCodes(codes);
  }

  @Test
  void countCodes_failedLogins_refusedAfterTheLimit_goodLoginsNeverCount() {
    EchoServer server =
        started.server(
            limits
                .interceptor()
                .rule(logins("3/10s", Status.Code.UNAUTHENTICATED).build())
                .build());

    for (int i = 0; i < 10; i++) {
      assertThat(server.login("good")).as("good login %s", i).isEqualTo(Status.Code.OK);
    }
    for (int i = 0; i < 3; i++) {
      assertThat(server.login("bad")).as("bad login %s", i).isEqualTo(Status.Code.UNAUTHENTICATED);
    }
    for (String attempt : List.of("bad", "bad", "good")) {
      assertThat(server.login(attempt)).as(attempt).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    }

    assertThat(server.received).as("refused calls never reach the handler").hasSize(13);
    limits.ticker.advance(Duration.ofSeconds(11));
    assertThat(server.login("bad")).isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(limits.errors).isEmpty();
  }

  @Test
  void countCodes_refundedCall_itsPermitIsFreeForTheNextCallAtOnce() {
    EchoServer server =
        started.server(
            limits.interceptor().rule(logins("1/1h", Status.Code.UNAUTHENTICATED).build()).build());

    for (int i = 0; i < 5; i++) {
      assertThat(server.login("good"))
          .as("good login %s, the clock standing", i)
          .isEqualTo(Status.Code.OK);
    }
    assertThat(server.login("bad")).isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(server.login("good")).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
  }

  @Test
  void countCodes_handlerThatThrows_countsAsUnknown() {
    EchoServer counting =
        started.server(
            limits.interceptor().rule(logins("1/10s", Status.Code.UNKNOWN).build()).build());
    assertThat(counting.login("throw")).isEqualTo(Status.Code.UNKNOWN);
    assertThat(counting.login("good")).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);

    EchoServer notCounting =
        started.server(
            limits
                .interceptor()
                .rule(logins("1/10s", Status.Code.UNAUTHENTICATED).build())
                .build());
    for (int i = 0; i < 3; i++) {
      assertThat(notCounting.login("throw")).isEqualTo(Status.Code.UNKNOWN);
    }
    assertThat(notCounting.login("bad")).isEqualTo(Status.Code.UNAUTHENTICATED);
  }

  @Test
  void countCodes_callRefusedByALaterRule_getsItsPermitBack() {
    GrpcRateLimitRule perKey =
        GrpcRateLimitRule.builder("per-key")
            .method("test.Auth/Login")
            .limit("1/10s")
            .key(GrpcKeyResolver.metadata("x-api-key", ClientAddressesFor.direct()))
            .build();
    EchoServer server =
        started.server(
            limits
                .interceptor()
                .rule(logins("1/10s", Status.Code.UNAUTHENTICATED).build())
                .rule(perKey)
                .build());

    assertThat(code(server, "good", "k1")).isEqualTo(Status.Code.OK);
    assertThat(code(server, "bad", "k1"))
        .as("refused by per-key, closed RESOURCE_EXHAUSTED, which logins does not count")
        .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(code(server, "bad", "k2")).isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(code(server, "good", "k3")).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
  }

  private static Status.Code code(EchoServer server, String text, String apiKey) {
    return server.login(text, Map.of("x-api-key", apiKey));
  }

  /**
   * A token check inside the limiter that throws {@code UNAUTHENTICATED} from {@code
   * interceptCall}, as some authentication interceptors do: gRPC closes such a call with the status
   * thrown.
   */
  private static final ServerInterceptor THROWING_TOKEN_CHECK =
      new ServerInterceptor() {
        @Override
        public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
            ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
          if (!"t".equals(headers.get(TOKEN))) {
            throw Status.UNAUTHENTICATED.withDescription("no token").asRuntimeException();
          }
          return next.startCall(call, headers);
        }
      };

  private static final Metadata.Key<String> TOKEN =
      Metadata.Key.of("x-token", Metadata.ASCII_STRING_MARSHALLER);

  @Test
  void countCodes_innerInterceptorThrowingAStatus_countsAsThatStatus() {
    EchoServer plain = started.server(THROWING_TOKEN_CHECK);
    assertThat(plain.login("good"))
        .as("without the limiter")
        .isEqualTo(Status.Code.UNAUTHENTICATED);
    EchoServer server =
        started.server(
            limits.interceptor().rule(logins("3/10s", Status.Code.UNAUTHENTICATED).build()).build(),
            THROWING_TOKEN_CHECK);

    List<Status.Code> guesses = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      guesses.add(tokenLogin(server, "guess-" + i));
    }

    assertThat(guesses)
        .as("the status the token check threw, counted; then refused")
        .containsExactly(
            Status.Code.UNAUTHENTICATED,
            Status.Code.UNAUTHENTICATED,
            Status.Code.UNAUTHENTICATED,
            Status.Code.RESOURCE_EXHAUSTED,
            Status.Code.RESOURCE_EXHAUSTED,
            Status.Code.RESOURCE_EXHAUSTED);
    assertThat(tokenLogin(server, "t")).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(server.received).isEmpty();
    limits.ticker.advance(Duration.ofSeconds(11));
    assertThat(tokenLogin(server, "t")).isEqualTo(Status.Code.OK);
    assertThat(limits.errors).isEmpty();
  }

  private static final Metadata.Key<String> CHALLENGE =
      Metadata.Key.of("x-challenge", Metadata.ASCII_STRING_MARSHALLER);

  /** A token check that throws what {@code thrown} makes of the UNAUTHENTICATED status. */
  private static ServerInterceptor tokenCheckThrowing(
      java.util.function.Function<io.grpc.StatusRuntimeException, RuntimeException> thrown) {
    return new ServerInterceptor() {
      @Override
      public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
          ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
        if (!"t".equals(headers.get(TOKEN))) {
          Metadata trailers = new Metadata();
          trailers.put(CHALLENGE, "token realm=login");
          throw thrown.apply(
              Status.UNAUTHENTICATED.withDescription("no token").asRuntimeException(trailers));
        }
        return next.startCall(call, headers);
      }
    };
  }

  private static io.grpc.StatusRuntimeException tokenFailure(EchoServer server, String token) {
    try {
      server.call(EchoServer.LOGIN, "good", Map.of("x-token", token));
    } catch (io.grpc.StatusRuntimeException e) {
      return e;
    }
    throw new AssertionError("the call with token " + token + " passed");
  }

  @Test
  void countCodes_innerInterceptorThrowingAStatus_keepsItsTrailers_alsoWhenItIsTheCause() {
    EchoServer server =
        started.server(
            limits.interceptor().rule(logins("2/10s", Status.Code.UNAUTHENTICATED).build()).build(),
            tokenCheckThrowing(e -> e));
    EchoServer wrapping =
        started.server(
            limits.interceptor().rule(logins("2/10s", Status.Code.UNAUTHENTICATED).build()).build(),
            tokenCheckThrowing(e -> new IllegalStateException("token check failed", e)));

    for (EchoServer each : List.of(server, wrapping)) {
      io.grpc.StatusRuntimeException first = tokenFailure(each, "g1");
      assertThat(first.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
      assertThat(first.getStatus().getDescription()).isEqualTo("no token");
      assertThat(first.getTrailers().get(CHALLENGE))
          .as("the trailers of the status thrown")
          .isEqualTo("token realm=login");
      assertThat(tokenFailure(each, "g2").getStatus().getCode())
          .isEqualTo(Status.Code.UNAUTHENTICATED);
      assertThat(tokenFailure(each, "g3").getStatus().getCode())
          .as("two counted, the third refused")
          .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    }
    assertThat(limits.errors).isEmpty();
  }

  @Test
  void countCodes_remoteBackend_decisionCompletesLater_innerInterceptorThrowsAStatus_counted() {
    RemoteLimiters remote = started.add(RemoteLimiters.refunding(limits.ticker));
    ExecutorService calls = started.executor("calls");
    EchoServer server =
        started.directServer(
            limits
                .interceptor()
                .limiterFactory(remote)
                .executor(calls)
                .rule(logins("2/10s", Status.Code.UNAUTHENTICATED).build())
                .build(),
            tokenCheckThrowing(e -> e));

    io.grpc.StatusRuntimeException first = tokenFailure(server, "g1");
    io.grpc.StatusRuntimeException second = tokenFailure(server, "g2");
    io.grpc.StatusRuntimeException third = tokenFailure(server, "g3");

    assertThat(first.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(first.getTrailers().get(CHALLENGE)).isEqualTo("token realm=login");
    assertThat(second.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(third.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(remote.callerThreads).as("decided by the remote backend").isNotEmpty();
    assertThat(remote.refunds).as("a counted status is never refunded").isEmpty();
    assertThat(limits.errors).isEmpty();
  }

  @Test
  void countCodes_limiterOutsideATokenCheckThatClosesTheCall_countsWrongTokens() {
    ServerInterceptor closingCheck =
        new ServerInterceptor() {
          @Override
          public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
              ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
            if (!"t".equals(headers.get(TOKEN))) {
              call.close(Status.UNAUTHENTICATED, new Metadata());
              return new ServerCall.Listener<>() {};
            }
            return next.startCall(call, headers);
          }
        };
    EchoServer server =
        started.server(
            limits.interceptor().rule(logins("2/10s", Status.Code.UNAUTHENTICATED).build()).build(),
            closingCheck);

    for (int i = 0; i < 5; i++) {
      assertThat(tokenLogin(server, "t")).as("right token %s", i).isEqualTo(Status.Code.OK);
    }
    assertThat(tokenLogin(server, "g1")).isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(tokenLogin(server, "g2")).isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(tokenLogin(server, "g3")).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(tokenLogin(server, "t")).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
  }

  private static Status.Code tokenLogin(EchoServer server, String token) {
    return server.login("good", Map.of("x-token", token));
  }

  @Test
  void countCodes_callCancelledOrExpiredBeforeItCloses_keepsItsCount() {
    EchoServer server =
        started.server(
            limits
                .interceptor()
                .rule(logins("2/10s", Status.Code.UNAUTHENTICATED).build())
                .build());
    assertThat(server.login("good")).as("connected, and nothing counted").isEqualTo(Status.Code.OK);
    EchoServer.Pending cancelled = server.startLogin("hold", EchoServer.options());
    EchoServer.Pending expired =
        server.startLogin("hold", CallOptions.DEFAULT.withDeadlineAfter(2, TimeUnit.SECONDS));
    await().atMost(BOUND).until(() -> server.held.size() == 2);

    cancelled.call().cancel("the client gave up", null);
    assertThat(cancelled.code().join()).isEqualTo(Status.Code.CANCELLED);
    assertThat(expired.code().join()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    await().atMost(BOUND).until(() -> server.cancelledLogins.get() == 2);

    assertThat(server.login("good"))
        .as("both calls, never closed by the server, still count")
        .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(limits.errors).isEmpty();
  }

  @Test
  void countCodes_concurrentCalls_neverPassMoreThanTheLimit() {
    long seed = new Random().nextLong();
    Random random = new Random(seed);
    int limit = 3;
    EchoServer server =
        started.server(
            limits
                .interceptor()
                .rule(
                    logins(limit + "/10s", Status.Code.UNAUTHENTICATED, Status.Code.UNKNOWN)
                        .build())
                .build());
    List<Status.Code> ends =
        List.of(
            Status.Code.OK,
            Status.Code.UNAUTHENTICATED,
            Status.Code.PERMISSION_DENIED,
            Status.Code.UNKNOWN);
    int counted = 0;
    for (int round = 0; round < 12; round++) {
      String where = "seed " + seed + ", round " + round;
      if (random.nextInt(4) == 0) {
        limits.ticker.advance(Duration.ofSeconds(11));
        counted = 0;
      }
      int callers = 2 + random.nextInt(8);
      List<EchoServer.Pending> calls = new ArrayList<>();
      for (int i = 0; i < callers; i++) {
        calls.add(server.startLogin("hold", EchoServer.options()));
      }
      int admitted = Math.min(callers, limit - counted);
      await()
          .atMost(BOUND)
          .until(
              () ->
                  server.held.size() + calls.stream().filter(call -> call.code().isDone()).count()
                      == callers);
      assertThat(server.held).as(where + ": calls admitted").hasSize(admitted);

      List<Status.Code> expected = new ArrayList<>();
      for (int i = 0; i < callers - admitted; i++) {
        expected.add(Status.Code.RESOURCE_EXHAUSTED);
      }
      for (int i = 0; i < admitted; i++) {
        Status.Code end = ends.get(random.nextInt(ends.size()));
        assertThat(server.release(end)).as(where).isTrue();
        expected.add(end);
        if (end == Status.Code.UNAUTHENTICATED || end == Status.Code.UNKNOWN) {
          counted++;
        }
      }
      assertThat(calls.stream().map(call -> call.code().join()).toList())
          .as(where)
          .containsExactlyInAnyOrderElementsOf(expected);
      assertThat(server.held).as(where).isEmpty();
    }
    assertThat(limits.errors).isEmpty();
  }

  @Test
  void countCodes_remoteBackend_reservesAndRefundsWithoutBlockingTheEventLoop() {
    RemoteLimiters remote = started.add(RemoteLimiters.refunding(limits.ticker));
    ExecutorService calls = started.executor("calls");
    EchoServer server =
        started.directServer(
            limits
                .interceptor()
                .limiterFactory(remote)
                .executor(calls)
                .rule(logins("1/10s", Status.Code.UNAUTHENTICATED).build())
                .build());

    for (int i = 1; i <= 3; i++) {
      assertThat(server.login("good")).isEqualTo(Status.Code.OK);
      int refunds = i;
      await().atMost(BOUND).until(() -> remote.refunds.size() == refunds);
    }
    assertThat(server.login("bad")).isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(server.login("good")).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);

    assertThat(remote.refunds)
        .as("each refund was asked for where the call closed, never blocking")
        .hasSize(3)
        .allSatisfy(thread -> assertThat(thread).matches("grpc-.*|calls"));
    assertThat(limits.errors).as("a blocking reserve or refund would be reported here").isEmpty();
  }

  @Test
  void countCodes_badInput_namesTheRuleAndTheParameter() {
    assertThatThrownBy(() -> GrpcRateLimitRule.builder("logins").countCodes())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "countCodes: rule 'logins' must list at least one code and no null, such as"
                + " UNAUTHENTICATED, was []");
    assertThatThrownBy(
            () -> GrpcRateLimitRule.builder("logins").countCodes(Status.Code.UNKNOWN, null))
        .hasMessageStartingWith("countCodes: rule 'logins' must list")
        .hasMessageEndingWith("was [UNKNOWN, null]");
    assertThatThrownBy(
            () -> logins("1/1s", Status.Code.UNAUTHENTICATED).countRefusedAttempts(true).build())
        .hasMessageStartingWith("countCodes: rule 'logins' counts refused attempts");
    assertThatThrownBy(() -> logins("1/1s", Status.Code.UNAUTHENTICATED).perMessage().build())
        .hasMessageStartingWith("countCodes: rule 'logins' counts per message");

    RateLimitServerInterceptor.Builder cannotRefund =
        RateLimitServerInterceptor.builder()
            .limiterFactory(new RemoteLimiters(limits.ticker))
            .rule(logins("1/1s", Status.Code.UNAUTHENTICATED).build());
    assertThatThrownBy(cannotRefund::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "countCodes: rule 'logins' counts only some codes, which needs a limiter that can give"
                + " reserved permits back, but ")
        .hasMessageContaining("cannot (it implements neither reserve nor refund)");
  }

  @Test
  void countCodes_rule_tellsItsCodes() {
    GrpcRateLimitRule rule =
        logins("3/10s", Status.Code.UNKNOWN, Status.Code.UNAUTHENTICATED, Status.Code.UNKNOWN)
            .build();

    assertThat(rule.countCodes()).containsExactly(Status.Code.UNKNOWN, Status.Code.UNAUTHENTICATED);
    assertThat(rule.toString()).endsWith(" counting codes [UNKNOWN, UNAUTHENTICATED]");
    assertThat(rule.httpRule().countStatuses().entries()).containsExactly("102", "116");
    assertThat(GrpcRateLimitRule.builder("all").limit("1/1s").build().countCodes()).isEmpty();
  }
}
