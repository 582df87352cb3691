package io.slidingwindow.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Attributes;
import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.Status;
import io.slidingwindow.Limit;
import io.slidingwindow.http.EnforcementCore;
import io.slidingwindow.http.EnforcementCore.Outcome;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.QuotaHeaders;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.http.RequestKey;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.testkit.LogCapture;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

/** The listener's ordering and hand-over, with decisions the test completes itself. */
class GatedListenerTest {

  /** One call per 3 seconds, on a clock that stands still: grants the first call, refuses next. */
  private static final EnforcementCore<String> ONE_PER_3S =
      EnforcementCore.<String>builder()
          .limiterFactory(RateLimiterFactory.inMemory(new FakeTicker(), 10))
          .rule(
              HttpRule.builder("one").limit(Limit.exact(1, Duration.ofSeconds(3))).build(),
              call -> RequestKey.global())
          .build();

  private static final Outcome ALLOWED = decide();
  private static final Outcome REFUSED = decide();

  private static Outcome decide() {
    return ONE_PER_3S.enforce("call", "POST", List.of("/svc/Method"), QuotaHeaders::new);
  }

  private final List<String> app = Collections.synchronizedList(new ArrayList<>());
  private final ArrayDeque<Runnable> executor = new ArrayDeque<>();
  private final RecordingCall call = new RecordingCall();
  private final Context.Key<String> user = Context.key("user");
  private final Context context = Context.ROOT.withValue(user, "ann");

  /**
   * An application's listener that throws an {@link Error} on every message, having recorded it,
   * and records the half-close, completion and cancellation it hears.
   */
  private ServerCall.Listener<String> overflowingOnEachMessage() {
    return new ServerCall.Listener<String>() {
      @Override
      public void onMessage(String message) {
        app.add("message " + message);
        throw new StackOverflowError("handler failed");
      }

      @Override
      public void onHalfClose() {
        app.add("half-close");
      }

      @Override
      public void onComplete() {
        app.add("complete");
      }

      @Override
      public void onCancel() {
        app.add("cancel");
      }
    };
  }

  /** The application's listener: records each event with the context value it saw. */
  private ServerCall.Listener<String> application() {
    app.add("start " + user.get());
    return new ServerCall.Listener<>() {
      @Override
      public void onMessage(String message) {
        app.add("message " + message + " " + user.get());
      }

      @Override
      public void onHalfClose() {
        app.add("half-close");
      }

      @Override
      public void onCancel() {
        app.add("cancel");
      }

      @Override
      public void onComplete() {
        app.add("complete");
      }
    };
  }

  private GatedListener<String> gate(ArrayDeque<CompletableFuture<Outcome>> messageDecisions) {
    return new GatedListener<>(
        executor::add,
        context,
        new LimitedCall<>(call, Context.ROOT),
        messageDecisions == null ? null : messageDecisions::poll);
  }

  private static void completeOnAnotherThread(CompletableFuture<Outcome> decision, Outcome outcome)
      throws InterruptedException {
    Thread backend = new Thread(() -> decision.complete(outcome), "backend");
    backend.start();
    backend.join(10_000);
  }

  private void runExecutor() {
    while (!executor.isEmpty()) {
      executor.poll().run();
    }
  }

  @Test
  void pendingStart_holdsEvents_thenGoesOnFromTheExecutorInOrder() throws Exception {
    CompletableFuture<Outcome> decision = new CompletableFuture<>();
    GatedListener<String> gate = gate(null);
    gate.start(() -> decision, this::application);
    gate.onMessage("a");
    gate.onMessage("b");
    gate.onHalfClose();
    assertThat(app).isEmpty();

    completeOnAnotherThread(decision, ALLOWED);
    assertThat(app).as("nothing runs on the backend's thread").isEmpty();
    assertThat(executor).hasSize(1);

    runExecutor();
    assertThat(app).containsExactly("start ann", "message a ann", "message b ann", "half-close");
    gate.onMessage("c");
    assertThat(app).last().isEqualTo("message c ann");
  }

  @Test
  void refusedStart_closesTheCall_andDropsEveryEvent() throws Exception {
    CompletableFuture<Outcome> decision = new CompletableFuture<>();
    GatedListener<String> gate = gate(null);
    gate.start(() -> decision, this::application);
    gate.onMessage("a");

    completeOnAnotherThread(decision, REFUSED);
    runExecutor();
    gate.onHalfClose();
    gate.onComplete();

    assertThat(app).isEmpty();
    assertThat(call.closed.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(call.trailers.get(GrpcRefusals.RETRY_AFTER)).isEqualTo("3");
  }

  @Test
  void perMessage_eachMessageWaitsForItsDecision_aRefusalEndsTheStream() throws Exception {
    CompletableFuture<Outcome> first = new CompletableFuture<>();
    CompletableFuture<Outcome> second = new CompletableFuture<>();
    ArrayDeque<CompletableFuture<Outcome>> decisions = new ArrayDeque<>(List.of(first, second));
    GatedListener<String> gate = gate(decisions);
    gate.start(null, this::application);
    gate.onMessage("a");
    gate.onMessage("b");
    gate.onMessage("c");
    assertThat(app).as("the first message is decided before the handler starts").isEmpty();

    completeOnAnotherThread(first, ALLOWED);
    runExecutor();
    assertThat(app).containsExactly("start ann", "message a ann");
    assertThat(second).as("the second message's decision was asked for").isNotDone();

    completeOnAnotherThread(second, REFUSED);
    runExecutor();
    gate.onMessage("d");

    assertThat(app).containsExactly("start ann", "message a ann", "cancel");
    assertThat(call.closed.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(decisions).as("no decision for messages after the refusal").isEmpty();
  }

  @Test
  void completeDecisions_runOnTheDeliveringThread_withoutTheExecutor() {
    GatedListener<String> gate =
        gate(new ArrayDeque<>(List.of(CompletableFuture.completedFuture(ALLOWED))));
    gate.start(() -> CompletableFuture.completedFuture(ALLOWED), this::application);
    gate.onMessage("a");

    assertThat(app).containsExactly("start ann", "message a ann");
    assertThat(executor).isEmpty();
  }

  @Test
  void applicationListenerThrows_endsTheCallWithUnknown() {
    GatedListener<String> gate =
        new GatedListener<>(
            executor::add,
            context,
            new LimitedCall<>(call, Context.ROOT),
            () -> (CompletionStage<Outcome>) CompletableFuture.completedFuture(ALLOWED));
    gate.start(
        null,
        () ->
            new ServerCall.Listener<String>() {
              @Override
              public void onMessage(String message) {
                throw new IllegalStateException("handler failed");
              }
            });
    gate.onMessage("a");
    gate.onMessage("b");

    assertThat(call.closed.getCode()).isEqualTo(Status.Code.UNKNOWN);
  }

  @Test
  void applicationListenerThrowsAnError_onTheExecutor_endsTheCallUnknown_thenHearsItsEnd()
      throws Exception {
    CompletableFuture<Outcome> decision = new CompletableFuture<>();
    GatedListener<String> gate = gate(null);
    gate.start(() -> decision, this::overflowingOnEachMessage);
    gate.onMessage("a");
    gate.onMessage("b");
    gate.onHalfClose();

    completeOnAnotherThread(decision, ALLOWED);
    assertThatThrownBy(this::runExecutor)
        .as("thrown on to the executor")
        .isInstanceOf(StackOverflowError.class);
    assertThat(executor).isEmpty();
    assertThat(call.closed).as("closed on the executor").isNotNull();
    assertThat(call.closed.getCode()).isEqualTo(Status.Code.UNKNOWN);
    gate.onComplete();
    gate.onMessage("c");

    assertThat(app).containsExactly("message a", "complete");
  }

  /**
   * An executor that runs the resumed drain on the thread handing it over (here the backend's that
   * completed the decision): the Error comes out of {@code execute} inside the backend's future,
   * where thrown on it would vanish, so it is logged at ERROR.
   */
  @Test
  void applicationListenerThrowsAnError_onADirectExecutor_afterALaterDecision_isLoggedAtError()
      throws Exception {
    CompletableFuture<Outcome> decision = new CompletableFuture<>();
    GatedListener<String> gate =
        new GatedListener<>(Runnable::run, context, new LimitedCall<>(call, Context.ROOT), null);
    gate.start(() -> decision, this::overflowingOnEachMessage);
    gate.onMessage("a");

    try (LogCapture log = LogCapture.of(GatedListener.class.getName())) {
      completeOnAnotherThread(decision, ALLOWED);

      assertThat(log.records())
          .as("the handler's Error, logged at ERROR")
          .filteredOn(record -> record.getLevel() == Level.SEVERE)
          .singleElement()
          .extracting(LogRecord::getThrown)
          .isInstanceOf(StackOverflowError.class);
    }
    assertThat(call.closed.getCode()).isEqualTo(Status.Code.UNKNOWN);
    gate.onComplete();
    assertThat(app).containsExactly("message a", "complete");
  }

  /**
   * On gRPC's thread the Error is logged, not thrown on: thrown to gRPC's serializing executor, it
   * would stop that executor's run without the call's end queued meanwhile.
   */
  @Test
  void applicationListenerThrowsAnError_inline_endsTheCallUnknown_loggedAtError_thenHearsItsEnd() {
    GatedListener<String> gate = gate(null);
    gate.start(() -> CompletableFuture.completedFuture(ALLOWED), this::overflowingOnEachMessage);
    try (LogCapture log = LogCapture.of(GatedListener.class.getName())) {
      gate.onMessage("a");

      assertThat(log.records())
          .as("the handler's Error, logged at ERROR")
          .filteredOn(record -> record.getLevel() == Level.SEVERE)
          .singleElement()
          .extracting(LogRecord::getThrown)
          .isInstanceOf(StackOverflowError.class);
    }
    assertThat(call.closed).isNotNull();
    gate.onMessage("b");
    gate.onCancel();

    assertThat(app).containsExactly("message a", "cancel");
    assertThat(call.closed.getCode()).isEqualTo(Status.Code.UNKNOWN);
    assertThat(executor).isEmpty();
  }

  @Test
  void perMessage_aStreamThatSendsNothing_takesItsFirstPermitAtTheStart() {
    ArrayDeque<CompletableFuture<Outcome>> decisions =
        new ArrayDeque<>(List.of(CompletableFuture.completedFuture(REFUSED)));
    GatedListener<String> gate = gate(decisions);
    gate.start(null, this::application);
    gate.onHalfClose();

    assertThat(decisions).isEmpty();
    assertThat(app).isEmpty();
    assertThat(call.closed.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
  }

  @Test
  void decisionThatFailsLater_endsTheCallWithUnknown_andTheHandlerHearsCancel() throws Exception {
    CompletableFuture<Outcome> second = new CompletableFuture<>();
    GatedListener<String> gate =
        gate(new ArrayDeque<>(List.of(CompletableFuture.completedFuture(ALLOWED), second)));
    gate.start(null, this::application);
    gate.onMessage("a");
    gate.onMessage("b");

    Thread backend =
        new Thread(() -> second.completeExceptionally(new StackOverflowError("key")), "backend");
    backend.start();
    backend.join(10_000);
    assertThatThrownBy(this::runExecutor)
        .as("the key's Error thrown on to the executor once the call is closed")
        .isInstanceOf(StackOverflowError.class);
    gate.onMessage("c");

    assertThat(app).containsExactly("start ann", "message a ann", "cancel");
    assertThat(call.closed.getCode()).isEqualTo(Status.Code.UNKNOWN);
  }

  /** A server call that records how it was closed; never cancelled. */
  static final class RecordingCall extends ServerCall<String, String> {
    Status closed;
    Metadata trailers;

    @Override
    public void request(int numMessages) {}

    @Override
    public void sendHeaders(Metadata headers) {}

    @Override
    public void sendMessage(String message) {}

    @Override
    public void close(Status status, Metadata trailers) {
      this.closed = status;
      this.trailers = trailers;
    }

    @Override
    public boolean isCancelled() {
      return false;
    }

    @Override
    public Attributes getAttributes() {
      return Attributes.EMPTY;
    }

    @Override
    public MethodDescriptor<String, String> getMethodDescriptor() {
      MethodDescriptor.Marshaller<String> text =
          new MethodDescriptor.Marshaller<>() {
            @Override
            public InputStream stream(String value) {
              return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
            }

            @Override
            public String parse(InputStream stream) {
              return "";
            }
          };
      return MethodDescriptor.<String, String>newBuilder()
          .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
          .setFullMethodName("test.Echo/Chat")
          .setRequestMarshaller(text)
          .setResponseMarshaller(text)
          .build();
    }
  }
}
