package io.slidingwindow.redis;

import io.slidingwindow.Ticker;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs this library's scripts through a {@link ScriptClient}, with the one set of retry rules that
 * every caller (synchronous or not, batched or not, limiter or counters) gets.
 *
 * <p>The rules ({@link #next}): a call is sent with EVALSHA; NOSCRIPT (the server does not know the
 * script: a restart, {@code SCRIPT FLUSH}, a failover) sends it again with EVAL, once; TRYAGAIN (a
 * multi-key call during a Cluster slot migration) sends the same command again after {@link
 * #TRYAGAIN_PAUSE_NANOS}, at most {@link #TRYAGAIN_RETRIES} times, and only while the caller still
 * waits. Nothing else is sent again: above all not a call that got no answer, since it may have
 * run.
 *
 * <p>On Cluster, a call that fails without an answer (no connection, refused while disconnected,
 * timed out) also asks the client to read the topology again ({@link
 * ScriptClient#refreshTopology}), at most once per {@link #REFRESH_INTERVAL_NANOS} of the ticker:
 * while calls keep failing after a master failed over, the client reads the topology again at least
 * that often, and calls for the master's slots reach the promoted replica soon after the nodes
 * agree on it, whatever the client's own triggers do. The call itself is not retried and does not
 * wait for the refresh.
 *
 * <p>Synchronous callers wait on the same stage as asynchronous ones ({@link #await}), so both take
 * exactly the same path. Thread-safe.
 */
final class ScriptCalls {

  /** How many times a call answered TRYAGAIN is sent again. */
  static final int TRYAGAIN_RETRIES = 2;

  /** The pause before a call answered TRYAGAIN is sent again. */
  static final long TRYAGAIN_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

  private static final Executor TRYAGAIN_DELAY =
      CompletableFuture.delayedExecutor(TRYAGAIN_PAUSE_NANOS, TimeUnit.NANOSECONDS);

  /** The least time between two topology refreshes that calls without an answer ask for. */
  static final long REFRESH_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** What follows a failed attempt. */
  enum Next {
    /** Send the script's text with EVAL. */
    EVAL,
    /** Send the same command again after a pause. */
    AGAIN,
    /** Give up: the call fails with this failure. */
    FAIL
  }

  private final ScriptClient client;
  private final ProblemReport problems;
  private final Executor tryAgainDelay;
  private final Ticker ticker;

  /** When a call without an answer last asked for a topology refresh, on {@link #ticker}. */
  private final AtomicLong lastRefresh;

  ScriptCalls(ScriptClient client) {
    this(client, new ProblemReport("(unnamed)"));
  }

  ScriptCalls(ScriptClient client, ProblemReport problems) {
    this(client, problems, TRYAGAIN_DELAY, Ticker.system());
  }

  /**
   * With {@code tryAgainDelay} running each resend after a TRYAGAIN and {@code ticker} timing the
   * topology refreshes, for tests that hold them.
   */
  ScriptCalls(ScriptClient client, ProblemReport problems, Executor tryAgainDelay, Ticker ticker) {
    this.client = client;
    this.problems = problems;
    this.tryAgainDelay = tryAgainDelay;
    this.ticker = ticker;
    this.lastRefresh = new AtomicLong(ticker.read() - REFRESH_INTERVAL_NANOS);
  }

  ScriptClient client() {
    return client;
  }

  /** The lasting problems met by this backend's calls. */
  ProblemReport problems() {
    return problems;
  }

  /**
   * The decision after an attempt failed.
   *
   * @param errorReply Redis's error reply, or null if the attempt got no answer
   * @param sentWithEval whether the attempt was an EVAL
   * @param tryAgainLeft how many TRYAGAIN retries are left
   */
  static Next next(String errorReply, boolean sentWithEval, int tryAgainLeft) {
    if (errorReply == null) {
      return Next.FAIL; // no answer: the call may have run, so it is never sent twice
    }
    if (errorReply.startsWith("NOSCRIPT") && !sentWithEval) {
      return Next.EVAL;
    }
    if (errorReply.startsWith("TRYAGAIN") && tryAgainLeft > 0) {
      return Next.AGAIN;
    }
    return Next.FAIL;
  }

  /**
   * Runs {@code script}. The stage completes with the reply, or fails with the failure of the last
   * attempt; cancelling or completing it stops any retry not yet sent.
   */
  CompletableFuture<List<Object>> run(Script script, String[] keys, String[] args) {
    Call call = new Call(script, keys, args);
    send(call);
    return call;
  }

  /**
   * Waits at most {@code timeoutNanos} for {@code call}. On a timeout or an interrupt the call is
   * cancelled (a call not sent yet is then dropped, a retry not sent yet is not sent) and the
   * exception thrown; a timeout also counts as a call without an answer. A reply that arrived as
   * the wait ended is returned instead, since Redis has acted on it.
   *
   * @throws ExecutionException with the call's failure
   */
  <T> T await(CompletableFuture<T> call, long timeoutNanos)
      throws TimeoutException, ExecutionException, InterruptedException {
    try {
      return call.get(timeoutNanos, TimeUnit.NANOSECONDS);
    } catch (TimeoutException | InterruptedException e) {
      if (call.cancel(false)) {
        if (e instanceof TimeoutException) {
          noAnswer();
        }
        throw e;
      }
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      return call.get(); // done meanwhile: the reply or its failure
    }
  }

  /**
   * {@code call}, failed with a {@link TimeoutException} unless it completes within {@code
   * timeoutNanos}; a timeout counts as a call without an answer, as in {@link #await}.
   */
  <T> CompletableFuture<T> within(CompletableFuture<T> call, long timeoutNanos) {
    return call.orTimeout(timeoutNanos, TimeUnit.NANOSECONDS)
        .whenComplete(
            (reply, error) -> {
              if (unwrap(error) instanceof TimeoutException) {
                noAnswer();
              }
            });
  }

  /**
   * Told of every call that got no answer: on Cluster, asks the client to read the topology again,
   * unless a call did less than {@link #REFRESH_INTERVAL_NANOS} ago. A refresh that fails to start
   * (the client is closing) is left to the next call without an answer.
   */
  private void noAnswer() {
    if (!client.isCluster()) {
      return;
    }
    long last = lastRefresh.get();
    long now = ticker.read();
    if (now - last >= REFRESH_INTERVAL_NANOS && lastRefresh.compareAndSet(last, now)) {
      try {
        client.refreshTopology();
      } catch (RuntimeException e) {
        // The client is closing: nothing is left to refresh.
      }
    }
  }

  /** The failure inside {@link CompletionException} wrappers. */
  static Throwable unwrap(Throwable error) {
    while (error instanceof CompletionException && error.getCause() != null) {
      error = error.getCause();
    }
    return error;
  }

  /**
   * One call: the stage its caller holds, and where its attempts have got to. The attempts run one
   * after the other, each sent from the completion of the one before (directly, or through the
   * delay executor, whose hand-over orders memory), so the plain fields need no lock.
   */
  private static final class Call extends CompletableFuture<List<Object>> {
    final Script script;
    final String[] keys;
    final String[] args;
    boolean sentWithEval;
    int tryAgainLeft = TRYAGAIN_RETRIES;

    /**
     * The attempt on the wire. When the call ends first (its caller timed out or gave up), the
     * attempt is cancelled too, so that a client which queues unanswered commands across a
     * reconnect (Lettuce does) drops it instead of sending it again: it may already have run.
     */
    volatile CompletableFuture<List<Object>> attempt;

    Call(Script script, String[] keys, String[] args) {
      this.script = script;
      this.keys = keys;
      this.args = args;
    }

    @Override
    public boolean completeExceptionally(Throwable ex) {
      boolean done = super.completeExceptionally(ex);
      dropAttempt();
      return done;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      boolean cancelled = super.cancel(mayInterruptIfRunning);
      dropAttempt();
      return cancelled;
    }

    private void dropAttempt() {
      CompletableFuture<List<Object>> a = attempt;
      if (a != null && !a.isDone()) {
        a.cancel(false);
      }
    }
  }

  /** Sends the call's next attempt, unless its caller stopped waiting. */
  private void send(Call call) {
    if (call.isDone()) {
      return;
    }
    CompletableFuture<List<Object>> attempt;
    try {
      attempt =
          call.sentWithEval
              ? client.eval(call.script.text(), call.keys, call.args)
              : client.evalsha(call.script.sha1(), call.keys, call.args);
    } catch (RuntimeException e) {
      call.completeExceptionally(e);
      return;
    }
    call.attempt = attempt;
    if (call.isDone()) { // ended while this attempt was being sent
      call.dropAttempt();
      return;
    }
    var unused =
        attempt.whenComplete(
            (reply, error) -> {
              if (error == null) {
                problems.onSuccess();
                call.complete(reply);
                return;
              }
              Throwable cause = unwrap(error);
              if (cause instanceof CancellationException && call.isDone()) {
                return; // dropped since its caller stopped waiting; a timeout counted where it ran
              }
              String errorReply = client.errorReply(cause);
              switch (next(errorReply, call.sentWithEval, call.tryAgainLeft)) {
                case EVAL -> {
                  call.sentWithEval = true;
                  send(call);
                }
                case AGAIN -> {
                  call.tryAgainLeft--;
                  tryAgainDelay.execute(() -> send(call));
                }
                default -> {
                  if (errorReply == null) {
                    noAnswer();
                  } else {
                    problems.onErrorReply(errorReply);
                  }
                  call.completeExceptionally(cause);
                }
              }
            });
  }
}
