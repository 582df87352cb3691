package io.slidingwindow.grpc;

import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.Status;
import io.slidingwindow.http.EnforcementCore.Outcome;
import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The listener of a limited call: it holds the call's events back while a decision is pending (the
 * call's start, or a message under a per-message rule) and hands them to the application's listener
 * in order once the decision lets them through, without blocking any thread.
 *
 * <p>Every event is a step in one queue, run by one drain at a time. A step may first ask for a
 * decision; a decision already complete (an in-memory limiter) is applied at once on the thread
 * that delivered the event; one that completes later resumes the drain on the executor, never on
 * the backend's thread that completed it, since the application's handler runs next. Events that
 * arrive meanwhile wait in the queue. After a refusal the call is closed and every later event is
 * dropped. After the application's listener threw (a {@link RuntimeException} or an {@link Error}),
 * the call is closed with {@code UNKNOWN} and only the call's end ({@code onCancel} or {@code
 * onComplete}) still reaches the listener, as under gRPC. The application's listener is always
 * called with the call's {@link Context} attached, one event at a time, in order.
 */
final class GatedListener<ReqT> extends ServerCall.Listener<ReqT> {

  private static final System.Logger LOG = System.getLogger(GatedListener.class.getName());

  /**
   * One event: an optional decision to wait for, then what to do with its outcome (or null); {@code
   * end} for the call's end ({@code onCancel}, {@code onComplete}).
   */
  private record Step(
      Supplier<CompletionStage<Outcome>> decision, Consumer<Outcome> then, boolean end) {

    Step(Supplier<CompletionStage<Outcome>> decision, Consumer<Outcome> then) {
      this(decision, then, false);
    }
  }

  private final Executor executor;
  private final Context context;
  private final LimitedCall<ReqT, ?> call;
  private final Supplier<CompletionStage<Outcome>> messageDecision;
  private final Object lock = new Object();
  private final ArrayDeque<Step> steps = new ArrayDeque<>();
  private boolean draining;

  // Read and written only by the drain, which runs one step at a time.
  private ServerCall.Listener<ReqT> delegate;
  private boolean ended;

  /** Whether the application's listener threw, and has yet to hear the call's end. */
  private boolean owesEnd;

  /** Whether the next message is the first, decided when the call started. */
  private boolean firstMessagePaid;

  /**
   * @param messageDecision the decision on each client message; null if no rule counts messages
   */
  GatedListener(
      Executor executor,
      Context context,
      LimitedCall<ReqT, ?> call,
      Supplier<CompletionStage<Outcome>> messageDecision) {
    this.executor = executor;
    this.context = context;
    this.call = call;
    this.messageDecision = messageDecision;
  }

  /**
   * Decides the call's start with {@code decision} (null: no decision), hands the permits it
   * reserved to the call to settle when it closes, then, if the call counts messages, decides its
   * first message ahead (so that a stream that sends none still counts once, and its first message
   * is not decided again), then starts the application's listener with {@code start} if both allow,
   * or closes the call if not. An interceptor inside this one that throws a status from {@code
   * start} (an authentication check throwing {@code UNAUTHENTICATED}) closes the call with that
   * status and its trailers, as gRPC does, so that rules counting only some codes count the status
   * the client receives (also when the status is the cause of what was thrown, and when the
   * decision completed later on the executor); anything else thrown closes it with {@code UNKNOWN}.
   */
  void start(
      Supplier<CompletionStage<Outcome>> decision, Supplier<ServerCall.Listener<ReqT>> start) {
    submit(
        new Step(
            decision,
            outcome -> {
              if (outcome != null) {
                call.settleOnClose(outcome.settlement());
                if (!outcome.allowed()) {
                  ended = true;
                  call.refuse(outcome.refusal(), false);
                  return;
                }
                call.grantHeaders(outcome.headers());
              }
              if (messageDecision == null) {
                startApplication(start);
              }
            }));
    if (messageDecision != null) {
      submit(
          new Step(
              messageDecision,
              outcome -> {
                if (outcome != null && !outcome.allowed()) {
                  ended = true;
                  call.refuse(outcome.refusal(), false);
                  return;
                }
                firstMessagePaid = true;
                startApplication(start);
              }));
    }
  }

  private void startApplication(Supplier<ServerCall.Listener<ReqT>> start) {
    try {
      delegate = start.get();
    } catch (RuntimeException e) {
      Status thrown = Status.fromThrowable(e);
      if (thrown.getCode() == Status.Code.UNKNOWN && thrown.getCause() == e) {
        throw e; // no status in it: a failure like any listener's, below
      }
      ended = true;
      Metadata trailers = Status.trailersFromThrowable(e);
      call.fail(thrown, trailers == null ? new Metadata() : trailers);
    }
  }

  @Override
  public void onMessage(ReqT message) {
    submit(
        new Step(
            messageDecision == null ? null : this::decideMessage,
            outcome -> {
              if (outcome != null && !outcome.allowed()) {
                ended = true;
                call.refuse(outcome.refusal(), true);
                delegate.onCancel();
                return;
              }
              delegate.onMessage(message);
            }));
  }

  /** The decision on a message: none for the first, whose permit the call took when it started. */
  private CompletionStage<Outcome> decideMessage() {
    if (firstMessagePaid) {
      firstMessagePaid = false;
      return CompletableFuture.completedFuture(null);
    }
    return messageDecision.get();
  }

  @Override
  public void onHalfClose() {
    submit(new Step(null, outcome -> delegate.onHalfClose()));
  }

  @Override
  public void onCancel() {
    submit(new Step(null, outcome -> delegate.onCancel(), true));
  }

  @Override
  public void onComplete() {
    submit(new Step(null, outcome -> delegate.onComplete(), true));
  }

  @Override
  public void onReady() {
    submit(new Step(null, outcome -> delegate.onReady()));
  }

  private void submit(Step step) {
    synchronized (lock) {
      steps.add(step);
      if (draining) {
        return;
      }
      draining = true;
    }
    drain();
  }

  /**
   * Runs the queued steps in order until the queue is empty (then another event starts the next
   * drain) or a step waits for a decision (then its completion resumes the drain).
   */
  private void drain() {
    Context previous = context.attach();
    try {
      while (true) {
        Step step;
        synchronized (lock) {
          step = steps.poll();
          if (step == null) {
            draining = false;
            return;
          }
        }
        if (ended) {
          if (step.end() && owesEnd) {
            owesEnd = false;
            run(step, null);
          }
          continue;
        }
        CompletableFuture<Outcome> decision = decide(step);
        if (decision != null && !decision.isDone()) {
          var unused = decision.whenComplete((outcome, error) -> resumeLater(step, decision));
          return;
        }
        run(step, decision);
      }
    } finally {
      context.detach(previous);
    }
  }

  private void resumeLater(Step step, CompletableFuture<Outcome> decision) {
    try {
      executor.execute(() -> resume(step, decision));
    } catch (RejectedExecutionException e) {
      resume(step, decision); // an executor shut down with the server: finish the call here
    }
  }

  private void resume(Step step, CompletableFuture<Outcome> decision) {
    Context previous = context.attach();
    try {
      run(step, decision);
    } finally {
      context.detach(previous);
    }
    drain();
  }

  private CompletableFuture<Outcome> decide(Step step) {
    if (step.decision() == null) {
      return null;
    }
    try {
      return step.decision().get().toCompletableFuture();
    } catch (RuntimeException | Error e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Applies {@code step} to its decision's outcome. A decision that failed (the enforcement turns
   * failing keys and backends into outcomes, so only an {@link Error}, such as a key resolver
   * overflowing its stack on what the client sent, gets here) ends the call with {@code UNKNOWN},
   * the handler hearing {@code onCancel} if it started (and the call then keeping the permits of
   * rules that count only some codes, see {@link LimitedCall}): the event never goes on unlimited,
   * whether the decision failed at once or later on a backend's thread. An application listener
   * that throws ends the call with {@code UNKNOWN} too, as gRPC does, and so settles it as {@code
   * UNKNOWN}; it then hears the call's end when gRPC tells it. An {@link Error} it throws is logged
   * and not thrown on: the call must end whether this runs on the executor (where nothing would
   * close it) or on a gRPC thread (whose queue of the call's later events an escaping Error
   * stalls).
   */
  private void run(Step step, CompletableFuture<Outcome> decision) {
    Outcome outcome = null;
    if (decision != null) {
      try {
        outcome = decision.join();
      } catch (RuntimeException e) {
        ended = true;
        LOG.log(Level.WARNING, "rate limit decision failed; call ended", e);
        call.end(
            Status.UNKNOWN.withDescription("Application error processing RPC"), delegate != null);
        if (delegate != null) {
          try {
            delegate.onCancel();
          } catch (RuntimeException | Error cancel) {
            LOG.log(Level.WARNING, "gRPC call listener failed", cancel);
          }
        }
        return;
      }
    }
    try {
      step.then().accept(outcome);
    } catch (RuntimeException | Error e) {
      if (!ended) {
        ended = true;
        owesEnd = delegate != null && !step.end();
      }
      LOG.log(e instanceof Error ? Level.ERROR : Level.WARNING, "gRPC call listener failed", e);
      call.fail(Status.UNKNOWN.withDescription("Application error processing RPC").withCause(e));
    }
  }
}
