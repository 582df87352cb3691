package io.slidingwindow.grpc;

import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.Status;
import io.slidingwindow.http.EnforcementCore.Outcome;
import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
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
 * or anything else in a step did (closing the call, a decision), the call is closed with {@code
 * UNKNOWN} and only the call's end ({@code onCancel} or {@code onComplete}) still reaches the
 * listener, as under gRPC; an {@link Error} is then thrown on, once the call is closed and the
 * queue let go of, to the interceptor's executor that ran the step (as gRPC's own listener throws
 * it on to its executor), but only logged at ERROR on gRPC's thread, whose serializing executor an
 * escaping Error stops without running the call's end queued meanwhile. The application's listener
 * is always called with the call's {@link Context} attached, one event at a time, in order.
 */
final class GatedListener<ReqT> extends ServerCall.Listener<ReqT> {

  private static final System.Logger LOG = System.getLogger(GatedListener.class.getName());

  /** How gRPC closes a call whose listener threw, and so how this one closes it. */
  private static final Status APPLICATION_ERROR =
      Status.UNKNOWN.withDescription("Application error processing RPC");

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

  /** Whether what closing the call threw was thrown on to gRPC: see {@link #submit}. */
  private final AtomicBoolean closeFailureThrown = new AtomicBoolean();

  // Read and written only by the drain, which runs one step at a time.
  private ServerCall.Listener<ReqT> delegate;
  private boolean ended;

  /** Whether the call failed after the application's listener started; it awaits the call's end. */
  private boolean owesEnd;

  /** Whether the application's listener was told the call's end (or is being told it). */
  private boolean heardEnd;

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
                end(ServerCall.Listener::onCancel);
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
    submit(new Step(null, outcome -> end(ServerCall.Listener::onCancel), true));
  }

  @Override
  public void onComplete() {
    submit(new Step(null, outcome -> end(ServerCall.Listener::onComplete), true));
  }

  /** Tells the application's listener the call's end, once. */
  private void end(Consumer<ServerCall.Listener<ReqT>> how) {
    if (!heardEnd && delegate != null) {
      heardEnd = true;
      how.accept(delegate);
    }
  }

  @Override
  public void onReady() {
    submit(new Step(null, outcome -> delegate.onReady()));
  }

  /**
   * Queues {@code step}, an event gRPC delivered, and drains the queue here unless a drain runs. An
   * {@link Error} that ends the call here, on gRPC's thread, is logged at ERROR, not thrown on (see
   * above); thrown on the interceptor's executor, after a remote decision, it is thrown on.
   *
   * <p>Then, if closing the call threw (an interceptor outside this one whose {@code close} throws,
   * perhaps before passing the close on), what it threw is thrown on to gRPC, once, even a {@link
   * RuntimeException}: the call may never have been closed below, and gRPC, as for any listener
   * that throws, then closes the stream itself, past the interceptors. That is during this event if
   * the close threw during it, else during the first event gRPC delivers after a close that threw
   * on the executor (the client's deadline ends the call if none comes).
   */
  private void submit(Step step) {
    boolean drainHere;
    synchronized (lock) {
      steps.add(step);
      drainHere = !draining;
      draining = true;
    }
    Error logged = null;
    if (drainHere) {
      try {
        drain(null);
      } catch (Error error) {
        // Thrown on here, it would end gRPC's serializing executor's run of this call's events
        // without its usual look for events queued meanwhile: the call's end, queued while this
        // step closed the call, could then wait for good, and the handler never hear it.
        LOG.log(Level.ERROR, "gRPC call listener failed", error);
        logged = error;
      }
    }
    Throwable closing = call.closeFailure();
    if (closing != null && closeFailureThrown.compareAndSet(false, true)) {
      if (closing instanceof Error error) {
        // Not thrown on as it is, for the reason above; gRPC ends the stream for any exception.
        if (error != logged) {
          LOG.log(Level.ERROR, "closing a gRPC call failed", error);
        }
        throw new IllegalStateException("closing the call failed", error);
      }
      throw (RuntimeException) closing;
    }
  }

  /**
   * Runs the queued steps in order until the queue is empty (then another event starts the next
   * drain) or a step waits for a decision (then its completion resumes the drain). A step never
   * throws out of the drain (see {@link #run}); an {@link Error} that ended the call ({@code
   * thrown}, from a step resumed on the executor, or one of this drain's) is thrown on once the
   * drain has let go of the queue, so that it reaches whoever ran the drain (gRPC's thread or the
   * executor) as it would without the interceptor, and never leaves the call's later events stuck.
   */
  private void drain(Error thrown) {
    Error rethrow = thrown;
    Context previous = context.attach();
    try {
      while (true) {
        Step step;
        synchronized (lock) {
          step = steps.poll();
          if (step == null) {
            draining = false;
            break;
          }
        }
        if (ended) {
          if (step.end() && owesEnd) {
            owesEnd = false;
            rethrow = first(rethrow, run(step, null));
          }
          continue;
        }
        CompletableFuture<Outcome> decision = decide(step);
        if (decision != null && !decision.isDone()) {
          var unused = decision.whenComplete((outcome, error) -> resumeLater(step, decision));
          break;
        }
        rethrow = first(rethrow, run(step, decision));
      }
    } finally {
      context.detach(previous);
    }
    if (rethrow != null) {
      throw rethrow;
    }
  }

  private static Error first(Error first, Error next) {
    return first != null ? first : next;
  }

  /**
   * Resumes the drain on the executor; here if the executor will not take it (shut down with the
   * server, or failing in any other way, such as a thread it cannot start), since a drain never
   * resumed would leave the call open and its events queued for good. Resumed once either way.
   *
   * <p>An executor may also run the task on the thread that hands it over (a direct executor, a
   * pool whose rejection policy runs it in the caller): an {@link Error} the drain throws on then
   * comes out of {@code execute}, on the backend's thread, inside its future, where it would vanish
   * if thrown on; it is logged at ERROR instead, as when the executor failed.
   */
  private void resumeLater(Step step, CompletableFuture<Outcome> decision) {
    AtomicBoolean resumed = new AtomicBoolean();
    AtomicReference<Error> resumedThrew = new AtomicReference<>();
    try {
      executor.execute(
          () -> {
            if (resumed.compareAndSet(false, true)) {
              try {
                resume(step, decision);
              } catch (Error error) {
                resumedThrew.set(error);
                throw error;
              }
            }
          });
    } catch (Throwable e) {
      if (!resumed.compareAndSet(false, true)) {
        Error threw = resumedThrew.get();
        if (threw != null) { // came back out of execute, as it is or wrapped
          LOG.log(Level.ERROR, "gRPC call listener failed", threw);
        }
        return;
      }
      if (!(e instanceof RejectedExecutionException)) {
        LOG.log(Level.WARNING, "executor failed to take a gRPC call; it goes on here", e);
      }
      try {
        resume(step, decision);
      } catch (Error error) {
        // On the backend's thread, inside its future: thrown on, it would vanish.
        LOG.log(Level.ERROR, "gRPC call listener failed", error);
      }
    }
  }

  private void resume(Step step, CompletableFuture<Outcome> decision) {
    Error thrown;
    Context previous = context.attach();
    try {
      thrown = run(step, decision);
    } finally {
      context.detach(previous);
    }
    drain(thrown);
  }

  private CompletableFuture<Outcome> decide(Step step) {
    if (step.decision() == null) {
      return null;
    }
    try {
      return step.decision().get().toCompletableFuture();
    } catch (Throwable e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Applies {@code step} to its decision's outcome; never throws, returns the {@link Error} to
   * throw on once the drain lets go (see {@link #drain}), or null. A decision that failed (the
   * enforcement turns failing keys and backends into outcomes, so only an {@link Error}, such as a
   * key resolver overflowing its stack on what the client sent, gets here) ends the call with
   * {@code UNKNOWN}, the handler hearing {@code onCancel} if it started (and the call then keeping
   * the permits of rules that count only some codes, see {@link LimitedCall}): the event never goes
   * on unlimited, whether the decision failed at once or later on a backend's thread. Anything else
   * thrown (by the application's listener, or by closing the call) ends the call with {@code
   * UNKNOWN} too, as gRPC does, and so settles it as {@code UNKNOWN}; a listener that started then
   * hears the call's end when gRPC tells it.
   */
  private Error run(Step step, CompletableFuture<Outcome> decision) {
    Outcome outcome = null;
    if (decision != null) {
      try {
        outcome = decision.join();
      } catch (RuntimeException e) {
        Throwable cause =
            e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        return failed(step, cause, true);
      }
    }
    try {
      step.then().accept(outcome);
      return null;
    } catch (Throwable e) {
      return failed(step, e, false);
    }
  }

  /**
   * Ends the call after {@code failure} (of the decision if {@code decided}); never throws, and
   * returns the first {@link Error} among {@code failure} and what ending the call threw.
   */
  private Error failed(Step step, Throwable failure, boolean decided) {
    ended = true;
    Throwable[] seen = {failure};
    attempt(
        seen,
        () -> {
          if (decided) {
            LOG.log(Level.WARNING, "rate limit decision failed; call ended", failure);
            call.end(APPLICATION_ERROR, delegate != null);
          } else {
            if (!(failure instanceof Error)) {
              LOG.log(Level.WARNING, "gRPC call listener failed", failure);
            }
            call.fail(APPLICATION_ERROR.withCause(failure));
          }
        });
    if (delegate != null && !heardEnd && !step.end()) {
      if (decided) {
        heardEnd = true;
        attempt(seen, delegate::onCancel);
      } else {
        owesEnd = true;
      }
    }
    return seen[0] instanceof Error error ? error : null;
  }

  /** Runs {@code action}; what it throws is logged, and kept in {@code seen} if an Error. */
  private static void attempt(Throwable[] seen, Runnable action) {
    try {
      action.run();
    } catch (Throwable e) {
      if (!(e instanceof Error)) {
        LOG.log(Level.WARNING, "ending a gRPC call failed", e);
      } else if (seen[0] instanceof Error first) {
        if (e != first) {
          first.addSuppressed(e);
        }
      } else {
        seen[0] = e;
      }
    }
  }
}
