package io.slidingwindow.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.CallOptions;
import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Ticker;
import io.slidingwindow.grpc.LoginStream.Guesses;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.http.RequestKey;
import io.slidingwindow.testkit.LogCapture;
import io.slidingwindow.testkit.RefundFailingLimiter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Failures inside the interceptor's own steps, not the handler's, on a real server and client: a
 * backend whose refund throws an {@link Error} at once, an executor that cannot take the call, an
 * interceptor outside the limiter whose close throws. Each must end the call (never left open until
 * the client's deadline, shown as {@code DEADLINE_EXCEEDED}) and let the handler hear its end.
 */
class DrainFailureTest {

  private static final Duration BOUND = Duration.ofSeconds(10);

  private final ListenedLimits limits = new ListenedLimits();
  @RegisterExtension final Started started = new Started();

  private static CallOptions shortDeadline() {
    return CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS);
  }

  /** The code of one login with {@code text}, its deadline 5 seconds away. */
  private static Status.Code login(EchoServer server, String text) throws Exception {
    return server.startLogin(text, shortDeadline()).code().get(BOUND.toSeconds(), TimeUnit.SECONDS);
  }

  /**
   * In-memory windows whose reservations' asynchronous refund throws {@code error} at once, as a
   * backend whose client class failed to load does.
   */
  static RateLimiterFactory refundThrowing(Ticker ticker, Error error) {
    RateLimiterFactory local = RateLimiterFactory.inMemory(ticker, 1_000);
    return (rule, ruleLimits, countRefused) ->
        new RefundFailingLimiter(
            local.create(rule, ruleLimits, countRefused), error, RefundFailingLimiter.Async.THROWN);
  }

  @Test
  void refundThrowingAnErrorAtOnce_theHandlersCloseStillReachesTheClient() throws Exception {
    EchoServer server =
        started.server(
            limits
                .interceptor()
                .limiterFactory(
                    refundThrowing(limits.ticker, new NoClassDefFoundError("the backend's client")))
                .rule(
                    GrpcRateLimitRule.builder("logins")
                        .method("test.Auth/Login")
                        .limit("3/1h")
                        .countCodes(Status.Code.UNAUTHENTICATED)
                        .build())
                .build());

    assertThat(login(server, "good"))
        .as("the handler's OK, not the client's deadline passing")
        .isEqualTo(Status.Code.OK);
    assertThat(login(server, "bad")).isEqualTo(Status.Code.UNAUTHENTICATED);
  }

  @Test
  void executorFailingToTakeTheCall_theCallGoesOnAnyway() throws Exception {
    RemoteLimiters remote = started.add(new RemoteLimiters(limits.ticker));
    EchoServer server =
        started.server(
            limits
                .interceptor()
                .limiterFactory(remote)
                .executor(
                    task -> {
                      throw new OutOfMemoryError("unable to create native thread");
                    })
                .rule(
                    GrpcRateLimitRule.builder("logins")
                        .method("test.Auth/Login")
                        .limit("1/1h")
                        .build())
                .build());

    assertThat(login(server, "good"))
        .as("handled, not left open until the client's deadline")
        .isEqualTo(Status.Code.OK);
    assertThat(login(server, "good")).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
  }

  /**
   * An interceptor outside the limiter whose call's close throws: after passing the close on (a
   * metrics hook that fails), or before (a hook that fails first, so the close never goes on);
   * {@code threw} counts the closes it failed.
   */
  private static final class ThrowingCloseHook implements ServerInterceptor {
    final AtomicInteger threw = new AtomicInteger();
    private final boolean passesCloseOn;
    private final Error error;

    private ThrowingCloseHook(boolean passesCloseOn, Error error) {
      this.passesCloseOn = passesCloseOn;
      this.error = error;
    }

    /** Passes the close on, then throws. */
    static ThrowingCloseHook afterClosing() {
      return new ThrowingCloseHook(true, null);
    }

    /** Throws before passing the close on. */
    static ThrowingCloseHook beforeClosing() {
      return new ThrowingCloseHook(false, null);
    }

    /** Throws {@code error} before passing the close on. */
    static ThrowingCloseHook beforeClosing(Error error) {
      return new ThrowingCloseHook(false, error);
    }

    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
        ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
      return next.startCall(
          new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
            @Override
            public void close(Status status, Metadata trailers) {
              if (passesCloseOn) {
                super.close(status, trailers);
              }
              threw.incrementAndGet();
              if (error != null) {
                throw error;
              }
              throw new IllegalStateException(
                  passesCloseOn ? "the close hook failed" : "the close hook failed before closing");
            }
          },
          headers);
    }
  }

  /** A server behind {@code hook}, then the limiter counting in memory by {@code rule}. */
  private EchoServer behind(ThrowingCloseHook hook, GrpcRateLimitRule rule) {
    return started.server(hook, limits.interceptor().rule(rule).build());
  }

  /**
   * A server behind {@code hook}, then the limiter deciding by {@code rule} on {@code remote}, the
   * handlers run on an executor of its own (thread {@code calls}).
   */
  private EchoServer behind(ThrowingCloseHook hook, RemoteLimiters remote, GrpcRateLimitRule rule) {
    return started.server(
        hook,
        limits
            .interceptor()
            .limiterFactory(remote)
            .executor(started.executor("calls"))
            .rule(rule)
            .build());
  }

  @Test
  void closeThrowingWhenALaterMessageIsRefused_theHandlerStillHearsTheEnd() throws Exception {
    EchoServer server =
        behind(
            ThrowingCloseHook.afterClosing(),
            GrpcRateLimitRule.builder("attempts")
                .method("test.Auth/LoginStream")
                .limit("2/1h")
                .perMessage()
                .build());

    LoginStream stream = LoginStream.open(server, shortDeadline());
    stream.guess(LoginStream.wrongPasswords(3));

    assertThat(stream.guesses())
        .isEqualTo(
            new Guesses(
                List.of("wrong password", "wrong password"), Status.Code.RESOURCE_EXHAUSTED));
    assertThat(endsOnceShutDown(server))
        .as("told once, when gRPC tells of the end (the close threw before the refusal's cancel)")
        .containsExactly("complete");
  }

  /**
   * What the login streams' handlers heard of their calls' ends, once at least one heard and the
   * server has shut down, so that an end told twice would have arrived.
   */
  private static List<String> endsOnceShutDown(EchoServer server) {
    await("the handler hears its call's end")
        .atMost(BOUND)
        .until(() -> !server.loginStreamEnds.isEmpty());
    server.close();
    return List.copyOf(server.loginStreamEnds);
  }

  /**
   * The handler's close never reaches gRPC; what it threw is thrown on to gRPC, which closes the
   * stream itself ({@code UNKNOWN}), as it does for a handler that throws without the limiter.
   */
  @Test
  void closeThrowingBeforePassingItOn_theCallEndsUnknown_notAtTheDeadline() throws Exception {
    EchoServer server =
        behind(
            ThrowingCloseHook.beforeClosing(),
            GrpcRateLimitRule.builder("logins").method("test.Auth/Login").limit("3/1h").build());

    assertThat(login(server, "good"))
        .as("ended by gRPC, not left open until the client's deadline")
        .isEqualTo(Status.Code.UNKNOWN);
  }

  /**
   * An Error from that close reaches gRPC wrapped (thrown on as it is, it could leave the call's
   * end queued in gRPC's serializing executor), so gRPC still ends the stream, and it is logged at
   * ERROR once.
   */
  @Test
  void closeThrowingAnErrorBeforePassingItOn_theCallEndsUnknown_theErrorLoggedOnce()
      throws Exception {
    NoClassDefFoundError error = new NoClassDefFoundError("the close hook's class");
    EchoServer server =
        behind(
            ThrowingCloseHook.beforeClosing(error),
            GrpcRateLimitRule.builder("logins").method("test.Auth/Login").limit("3/1h").build());

    try (LogCapture log = LogCapture.of(GatedListener.class.getName())) {
      assertThat(login(server, "good"))
          .as("ended by gRPC, not left open until the client's deadline")
          .isEqualTo(Status.Code.UNKNOWN);
      assertThat(log.records())
          .as("the close's Error, logged at ERROR once")
          .filteredOn(record -> record.getThrown() == error)
          .singleElement()
          .extracting(LogRecord::getLevel)
          .isEqualTo(Level.SEVERE);
    }
  }

  /**
   * The same when the handler ran on the executor after a remote decision, where gRPC cannot be
   * reached: what the close threw is thrown on to gRPC from the next event it delivers, here the
   * client's half-close. (A message the client sends is no such event: the call, closed, asks gRPC
   * for no more.)
   */
  @Test
  void closeThrowingBeforePassingItOn_onTheExecutor_theNextEventEndsTheCall() throws Exception {
    ThrowingCloseHook outside = ThrowingCloseHook.beforeClosing();
    RemoteLimiters remote = started.add(new RemoteLimiters(limits.ticker));
    EchoServer server =
        behind(
            outside,
            remote,
            GrpcRateLimitRule.builder("attempts")
                .method("test.Auth/LoginStream")
                .limit("10/1h")
                .perMessage()
                .build());

    LoginStream stream = LoginStream.open(server, shortDeadline());
    assertThat(stream.guess(List.of("guess-0"))).isTrue();
    Runnable release = remote.hold();
    stream.send("good");
    await("the good password's decision asked for")
        .atMost(BOUND)
        .until(() -> remote.keys.size() == 2);
    release.run();
    await("the handler's close failed").atMost(BOUND).until(() -> outside.threw.get() == 1);
    stream.sendHalfClose();

    assertThat(stream.awaitEnd())
        .as("ended by gRPC, not left open until the client's deadline")
        .isEqualTo(new Guesses(List.of("wrong password", "welcome"), Status.Code.UNKNOWN));
    assertThat(server.handlerThreads)
        .as("the good password handled on the executor")
        .endsWith("calls");
  }

  /**
   * In-memory windows of {@code limits}, each limiter created kept in {@code created} and each key
   * it counted in {@code keys}, so that a test can read how many permits a key holds.
   */
  private static RateLimiterFactory watched(
      ListenedLimits limits, List<KeyedRateLimiter<String>> created, Set<String> keys) {
    RateLimiterFactory local = RateLimiterFactory.inMemory(limits.ticker, 1_000);
    return (rule, ruleLimits, countRefused) -> {
      KeyedRateLimiter<String> windows = local.create(rule, ruleLimits, countRefused);
      created.add(windows);
      @SuppressWarnings("unchecked")
      KeyedRateLimiter<String> seen =
          (KeyedRateLimiter<String>)
              Proxy.newProxyInstance(
                  KeyedRateLimiter.class.getClassLoader(),
                  new Class<?>[] {KeyedRateLimiter.class},
                  (proxy, method, args) -> {
                    if (method.getName().startsWith("decide")
                        || method.getName().startsWith("reserve")) {
                      keys.add((String) args[0]);
                    }
                    try {
                      return method.invoke(windows, args);
                    } catch (InvocationTargetException e) {
                      throw e.getCause();
                    }
                  });
      return seen;
    };
  }

  /**
   * A close that throws before passing the close on, outside a rule counting failed logins: the
   * handler's close (settled, then the close throws) and the refusal's close (before the handler)
   * both end the call at once, never at the client's deadline; a granted call is settled once with
   * the code the handler closed it with, and a refused call takes no permit.
   */
  @Test
  void closeThrowingBeforePassingItOn_countingCodes_settledOnce_refusalEndsAtOnce()
      throws Exception {
    List<KeyedRateLimiter<String>> created = new CopyOnWriteArrayList<>();
    Set<String> keys = ConcurrentHashMap.newKeySet();
    ThrowingCloseHook hook = ThrowingCloseHook.beforeClosing();
    EchoServer server =
        started.server(
            hook,
            limits
                .interceptor()
                .limiterFactory(watched(limits, created, keys))
                .rule(
                    GrpcRateLimitRule.builder("logins")
                        .method("test.Auth/Login")
                        .limit("2/1h")
                        .key((call, headers, context) -> RequestKey.global())
                        .countCodes(Status.Code.UNAUTHENTICATED)
                        .build())
                .build());
    Supplier<Long> remaining =
        () -> keys.stream().mapToLong(key -> created.get(0).peek(key).remaining()).min().orElse(2);

    assertThat(login(server, "bad"))
        .as("ended by gRPC, not left open until the client's deadline")
        .isEqualTo(Status.Code.UNKNOWN);
    assertThat(remaining.get()).as("the failed login kept").isEqualTo(1);
    for (int i = 0; i < 3; i++) {
      assertThat(login(server, "good")).isEqualTo(Status.Code.UNKNOWN);
      await("the good login given back")
          .atMost(BOUND)
          .untilAsserted(
              () -> assertThat(remaining.get()).as("given back once, no more").isEqualTo(1));
    }
    assertThat(login(server, "bad")).isEqualTo(Status.Code.UNKNOWN);
    assertThat(remaining.get()).isZero();

    assertThat(login(server, "bad"))
        .as("refused, and its close's failure ends it at once, not at the deadline")
        .isEqualTo(Status.Code.UNKNOWN);
    assertThat(login(server, "good")).isEqualTo(Status.Code.UNKNOWN);
    assertThat(server.received)
        .as("the refused logins never handled")
        .containsExactly("Login:bad", "Login:good", "Login:good", "Login:good", "Login:bad");
    assertThat(remaining.get()).as("the refusals took nothing, gave nothing back").isZero();
    assertThat(hook.threw).as("every close failed").hasValue(7);
    assertThat(limits.errors).isEmpty();
  }

  /**
   * A close that passes the close on, then throws, around a refusal: the client has the refusal's
   * {@code RESOURCE_EXHAUSTED} at once, and nothing is handed to the handler.
   */
  @Test
  void closeThrowingAfterPassingItOn_theRefusalReachesTheClient() throws Exception {
    ThrowingCloseHook hook = ThrowingCloseHook.afterClosing();
    EchoServer server =
        behind(
            hook,
            GrpcRateLimitRule.builder("logins").method("test.Auth/Login").limit("1/1h").build());

    assertThat(login(server, "good")).isEqualTo(Status.Code.OK);
    assertThat(login(server, "good")).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(server.received).containsExactly("Login:good");
    assertThat(hook.threw).hasValue(2);
  }

  /**
   * The second message's key fails while the first message's decision is still pending, with a
   * third queued behind it: the drain goes on past the failure and drops the third, never deciding
   * it nor handing it to the handler.
   */
  @Test
  void closeThrowingWhenADecisionFails_theHandlerStillHearsTheEnd_andTheDrainGoesOn()
      throws Exception {
    RemoteLimiters remote = started.add(new RemoteLimiters(limits.ticker));
    int[] calls = {0};
    GrpcKeyResolver failingOnTheSecond =
        (call, headers, context) -> {
          synchronized (calls) {
            if (++calls[0] == 2) {
              throw new StackOverflowError("password nested too deep");
            }
          }
          return io.slidingwindow.http.RequestKey.global();
        };
    EchoServer server =
        behind(
            ThrowingCloseHook.afterClosing(),
            remote,
            GrpcRateLimitRule.builder("attempts")
                .method("test.Auth/LoginStream")
                .limit("10/1h")
                .key(failingOnTheSecond)
                .perMessage()
                .build());

    Runnable release = remote.hold();
    LoginStream stream = LoginStream.open(server, shortDeadline());
    LoginStream.wrongPasswords(3).forEach(stream::send);
    await("the first decision asked for").atMost(BOUND).until(() -> remote.keys.size() == 1);
    release.run();

    assertThat(stream.awaitEnd())
        .isEqualTo(new Guesses(List.of("wrong password"), Status.Code.UNKNOWN));
    assertThat(endsOnceShutDown(server)).as("told once, cancelled").containsExactly("cancel");
    assertThat(server.received)
        .as("the third message dropped")
        .containsExactly("LoginStream:guess-0");
    synchronized (calls) {
      assertThat(calls[0]).as("keys resolved: the third message never decided").isEqualTo(2);
    }
  }
}
