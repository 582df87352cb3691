package io.slidingwindow.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.CallOptions;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.slidingwindow.grpc.LoginStream.Guesses;
import io.slidingwindow.testkit.LogCapture;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A handler that throws an {@link Error} (not a RuntimeException) behind the limiter, on a real
 * server and client: the bidi login {@code test.Auth/LoginStream} answers each wrong password and
 * throws a {@link StackOverflowError} on the password {@code error}. The call must end {@code
 * UNKNOWN} at once, as gRPC ends it without the limiter, count as {@code UNKNOWN} for a rule that
 * counts codes, and the handler must hear how the call ended. A call that hangs shows as the
 * client's short deadline passing ({@code DEADLINE_EXCEEDED}).
 */
class HandlerErrorTest {

  private static final Duration BOUND = Duration.ofSeconds(10);

  private final ListenedLimits limits = new ListenedLimits();
  @RegisterExtension final Started started = new Started();

  /** Options whose deadline passes well before the test's bounds. */
  private static CallOptions shortDeadline() {
    return CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS);
  }

  /** Failed logins, one an hour, counted only when the call closes with one of {@code codes}. */
  private static GrpcRateLimitRule logins(Status.Code... codes) {
    return GrpcRateLimitRule.builder("logins")
        .method("test.Auth/LoginStream")
        .limit("1/1h")
        .countCodes(codes)
        .build();
  }

  /** Attempts: 10 messages a second, each decided when it arrives. */
  private static GrpcRateLimitRule attempts() {
    return GrpcRateLimitRule.builder("attempts")
        .method("test.Auth/LoginStream")
        .limit("10/1s")
        .perMessage()
        .build();
  }

  /**
   * Counts the messages it handed to the interceptor inside it, once that interceptor's listener
   * returned (a message whose decision is pending is then held back there).
   */
  private static final class Delivered implements ServerInterceptor {
    final AtomicInteger messages = new AtomicInteger();

    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
        ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
      return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
          next.startCall(call, headers)) {
        @Override
        public void onMessage(ReqT message) {
          super.onMessage(message);
          messages.incrementAndGet();
        }
      };
    }
  }

  /**
   * One wrong password, then the password that makes the handler throw, whose decision the remote
   * backend makes only once the interceptor holds the message back: the handler then runs on the
   * interceptor's executor, never on the gRPC thread that delivered the message.
   */
  private static Guesses guessThenErrorOnTheExecutor(
      EchoServer server, RemoteLimiters remote, Delivered delivered) throws InterruptedException {
    LoginStream stream = LoginStream.open(server, shortDeadline());
    stream.guess(List.of("guess-0"));
    Runnable release = remote.hold();
    int before = delivered.messages.get(); // read before sending: the message may pass at once
    stream.send("error");
    await("the message held back").atMost(BOUND).until(() -> delivered.messages.get() > before);
    release.run();
    return stream.awaitEnd();
  }

  /**
   * A server whose interceptor decides on {@code remote}, hands each call on to the executor {@code
   * calls}, and counts failed logins closed with {@code counted}.
   */
  private EchoServer onTheExecutor(
      RemoteLimiters remote, Delivered delivered, Status.Code counted) {
    return onTheExecutor(remote, delivered, counted, started.executor("calls"));
  }

  private EchoServer onTheExecutor(
      RemoteLimiters remote, Delivered delivered, Status.Code counted, Executor calls) {
    return started.server(
        delivered,
        limits
            .interceptor()
            .limiterFactory(remote)
            .executor(calls)
            .rule(logins(counted))
            .rule(attempts())
            .build());
  }

  /**
   * An executor of one thread named "calls" whose threads hand what escapes a task to their
   * uncaught-exception handler, which keeps it in {@code uncaught}.
   */
  private ExecutorService recordingUncaught(Queue<Throwable> uncaught) {
    ExecutorService executor =
        Executors.newSingleThreadExecutor(
            runnable -> {
              Thread thread = new Thread(runnable, "calls");
              thread.setUncaughtExceptionHandler((t, e) -> uncaught.add(e));
              return thread;
            });
    started.add(executor::shutdownNow);
    return executor;
  }

  /** Outside the limiter: keeps what the limiter's listener throws to gRPC, then throws it on. */
  private static final class ThrownToGrpc implements ServerInterceptor {
    final Queue<Throwable> thrown = new ConcurrentLinkedQueue<>();

    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
        ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
      return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
          next.startCall(call, headers)) {
        @Override
        public void onMessage(ReqT message) {
          try {
            super.onMessage(message);
          } catch (RuntimeException | Error e) {
            thrown.add(e);
            throw e;
          }
        }
      };
    }
  }

  /**
   * The handler's Error on the executor is thrown on to that executor once the call is closed, as
   * gRPC's own listener throws it on to the server's executor: never only logged.
   */
  @Test
  void handlerThrowingAnError_onTheExecutor_reachesTheExecutorsUncaughtHandling_afterTheClose()
      throws InterruptedException {
    RemoteLimiters remote = started.add(RemoteLimiters.refunding(limits.ticker));
    Delivered delivered = new Delivered();
    Queue<Throwable> uncaught = new ConcurrentLinkedQueue<>();
    EchoServer server =
        onTheExecutor(remote, delivered, Status.Code.UNAUTHENTICATED, recordingUncaught(uncaught));

    assertThat(guessThenErrorOnTheExecutor(server, remote, delivered))
        .isEqualTo(new Guesses(List.of("wrong password"), Status.Code.UNKNOWN));
    await("the Error reaches the executor's uncaught-exception handler")
        .atMost(BOUND)
        .until(() -> !uncaught.isEmpty());
    assertThat(uncaught)
        .singleElement()
        .isInstanceOf(StackOverflowError.class)
        .extracting(Throwable::getMessage)
        .isEqualTo("the password parser overflowed its stack");
    assertThat(endsOnceShutDown(server)).containsExactly("complete");
  }

  /**
   * What the login streams' handlers heard of their calls' ends, once at least {@code heard} did
   * and the server has shut down, so that an end told twice would have arrived.
   */
  private static List<String> endsOnceShutDown(EchoServer server, int heard) {
    await("the handlers hear their calls' ends")
        .atMost(BOUND)
        .until(() -> server.loginStreamEnds.size() >= heard);
    server.close();
    return List.copyOf(server.loginStreamEnds);
  }

  private static List<String> endsOnceShutDown(EchoServer server) {
    return endsOnceShutDown(server, 1);
  }

  /**
   * On gRPC's thread, the handler's Error is logged at ERROR and not thrown on to gRPC, whose
   * serializing executor, stopped by an Error, could leave the call's end queued for good.
   */
  @Test
  void handlerThrowingAnError_inline_loggedAtError_notThrownOnToGrpc() throws InterruptedException {
    ThrownToGrpc outside = new ThrownToGrpc();
    EchoServer server =
        started.server(
            outside, limits.interceptor().rule(logins(Status.Code.UNAUTHENTICATED)).build());

    try (LogCapture log = LogCapture.of(GatedListener.class.getName())) {
      assertThat(guessThenError(server))
          .isEqualTo(new Guesses(List.of("wrong password"), Status.Code.UNKNOWN));
      await("the Error logged at ERROR")
          .atMost(BOUND)
          .until(
              () ->
                  log.records().stream()
                      .anyMatch(
                          record ->
                              record.getLevel() == Level.SEVERE
                                  && record.getThrown() instanceof StackOverflowError));
    }
    assertThat(LoginStream.guessUntilEnded(server, 1))
        .as("settled as UNKNOWN: the permit was given back")
        .isEqualTo(new Guesses(List.of("wrong password"), Status.Code.UNAUTHENTICATED));
    assertThat(endsOnceShutDown(server, 2))
        .as("each handler told its end once")
        .containsExactly("complete", "complete");
    assertThat(outside.thrown).as("what the limiter's listener threw to gRPC").isEmpty();
  }

  /** One wrong password, then the password that makes the handler throw. */
  private static Guesses guessThenError(EchoServer server) throws InterruptedException {
    LoginStream stream = LoginStream.open(server, shortDeadline());
    stream.guess(List.of("guess-0", "error"));
    return stream.guesses();
  }

  /**
   * The handler throws on the message a remote backend decided later, so on the interceptor's
   * executor, not on a gRPC thread that would close the call itself.
   */
  @Test
  void handlerThrowingAnError_onTheExecutor_endsTheCallUnknownAtOnce_countedAsUnknown()
      throws InterruptedException {
    RemoteLimiters remote = started.add(RemoteLimiters.refunding(limits.ticker));
    Delivered delivered = new Delivered();
    EchoServer server = onTheExecutor(remote, delivered, Status.Code.UNAUTHENTICATED);

    assertThat(guessThenErrorOnTheExecutor(server, remote, delivered))
        .as("ended as gRPC ends a handler that throws, before the client's deadline")
        .isEqualTo(new Guesses(List.of("wrong password"), Status.Code.UNKNOWN));
    assertThat(server.handlerThreads)
        .as("the password that throws was handled on the executor")
        .endsWith("calls");
    await("the handler hears its call's end")
        .atMost(BOUND)
        .until(() -> !server.loginStreamEnds.isEmpty());
    await("the permit given back").atMost(BOUND).until(() -> remote.refunds.size() == 1);

    assertThat(LoginStream.guessUntilEnded(server, 1))
        .as("UNKNOWN is not counted: the permit was given back")
        .isEqualTo(new Guesses(List.of("wrong password"), Status.Code.UNAUTHENTICATED));
    assertThat(LoginStream.guessUntilEnded(server, 1))
        .isEqualTo(new Guesses(List.of(), Status.Code.RESOURCE_EXHAUSTED));
    assertThat(limits.errors).isEmpty();
    assertThat(endsOnceShutDown(server, 2))
        .as("what the handlers heard, each once")
        .containsExactly("complete", "complete");
  }

  @Test
  void handlerThrowingAnError_onTheExecutor_countedWhenUnknownIsCounted()
      throws InterruptedException {
    RemoteLimiters remote = started.add(RemoteLimiters.refunding(limits.ticker));
    Delivered delivered = new Delivered();
    EchoServer server = onTheExecutor(remote, delivered, Status.Code.UNKNOWN);

    assertThat(guessThenErrorOnTheExecutor(server, remote, delivered).end())
        .as("ended before the client's deadline")
        .isEqualTo(Status.Code.UNKNOWN);
    assertThat(guessThenError(server))
        .as("the handler's Error counted as UNKNOWN")
        .isEqualTo(new Guesses(List.of(), Status.Code.RESOURCE_EXHAUSTED));
    assertThat(remote.refunds).isEmpty();
  }

  /**
   * The handler throws on the thread gRPC delivered the message on (an in-memory decision, complete
   * at once): the call is ended and settled here, and the handler still hears its end.
   */
  @Test
  void handlerThrowingAnError_inline_settlesTheCall_andTheHandlerHearsItsEnd()
      throws InterruptedException {
    EchoServer server =
        started.server(limits.interceptor().rule(logins(Status.Code.UNAUTHENTICATED)).build());

    assertThat(guessThenError(server))
        .isEqualTo(new Guesses(List.of("wrong password"), Status.Code.UNKNOWN));
    assertThat(LoginStream.guessUntilEnded(server, 1))
        .as("UNKNOWN is not counted: the permit was given back")
        .isEqualTo(new Guesses(List.of("wrong password"), Status.Code.UNAUTHENTICATED));
    await("the handler hears its call's end")
        .atMost(BOUND)
        .until(() -> server.loginStreamEnds.size() == 2);
    assertThat(server.loginStreamEnds)
        .as("what the handlers heard")
        .containsExactly("complete", "complete");
    assertThat(LoginStream.guessUntilEnded(server, 1))
        .isEqualTo(new Guesses(List.of(), Status.Code.RESOURCE_EXHAUSTED));
    assertThat(limits.errors).isEmpty();
  }
}
