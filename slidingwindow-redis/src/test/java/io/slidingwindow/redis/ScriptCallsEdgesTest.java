package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.slidingwindow.testkit.FakeTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * A script call at its edges: a client that throws, a caller that stops waiting while an attempt is
 * being sent, a reply that arrives as the wait ends, an interrupted wait, the problems a call's
 * answers report, and the unwrapping of failures. No network.
 */
class ScriptCallsEdgesTest {

  private static final String[] KEYS = {"k"};
  private static final String[] ARGS = {"a"};

  /** A client whose sends run {@code onSend} and return what it returns. */
  private static class HookedClient implements ScriptClient {
    final List<CompletableFuture<List<Object>>> attempts = new ArrayList<>();
    int refreshes;
    boolean cluster;
    Supplier<CompletableFuture<List<Object>>> onSend = CompletableFuture::new;

    @Override
    public CompletableFuture<List<Object>> evalsha(String sha1, String[] keys, String[] args) {
      CompletableFuture<List<Object>> attempt = onSend.get();
      attempts.add(attempt);
      return attempt;
    }

    @Override
    public CompletableFuture<List<Object>> eval(String script, String[] keys, String[] args) {
      return evalsha(null, keys, args);
    }

    @Override
    public String errorReply(Throwable failure) {
      return failure instanceof ScriptedClient.ErrorReply ? failure.getMessage() : null;
    }

    @Override
    public void refreshTopology() {
      refreshes++;
    }

    @Override
    public boolean isCluster() {
      return cluster;
    }
  }

  @Test
  void run_clientThrows_failedStageNotAThrow() {
    HookedClient client = new HookedClient();
    IllegalStateException closed = new IllegalStateException("client closed");
    client.onSend =
        () -> {
          throw closed;
        };

    CompletableFuture<List<Object>> call = new ScriptCalls(client).run(Script.LIMITER, KEYS, ARGS);

    assertThat(call).isCompletedExceptionally();
    assertThatThrownBy(call::join).cause().isSameAs(closed);
  }

  @Test
  void run_callerStopsWaitingWhileTheAttemptIsBeingSent_attemptCancelled() {
    HookedClient client = new HookedClient();
    List<Runnable> paused = new ArrayList<>();
    AtomicReference<CompletableFuture<List<Object>>> caller = new AtomicReference<>();
    client.onSend =
        () -> CompletableFuture.failedFuture(new ScriptedClient.ErrorReply("TRYAGAIN slot"));
    ScriptCalls calls =
        new ScriptCalls(client, new ProblemReport("test"), paused::add, new FakeTicker());
    caller.set(calls.run(Script.LIMITER, KEYS, ARGS));
    client.onSend =
        () -> {
          caller.get().cancel(false); // the caller gives up while the resend is on its way
          return new CompletableFuture<>();
        };

    paused.get(0).run();

    assertThat(client.attempts).hasSize(2);
    assertThat(client.attempts.get(1)).as("the resend").isCancelled();
  }

  @Test
  void run_callerFailsTheCall_attemptOnTheWireCancelled() {
    HookedClient client = new HookedClient();
    CompletableFuture<List<Object>> call = new ScriptCalls(client).run(Script.LIMITER, KEYS, ARGS);

    call.completeExceptionally(new TimeoutException());

    assertThat(client.attempts.get(0)).isCancelled();
  }

  @Test
  void run_errorReplyThenSuccess_problemReportedThenCleared() {
    ProblemReport problems = new ProblemReport("test");
    ScriptedClient client =
        new ScriptedClient(
            new ScriptedClient.ErrorReply("NOPERM no rights to run 'evalsha'"), List.of(1L));
    ScriptCalls calls = new ScriptCalls(client, problems, Runnable::run, new FakeTicker());

    assertThat(calls.run(Script.LIMITER, KEYS, ARGS)).isCompletedExceptionally();
    assertThat(problems.latest()).isEqualTo(RedisProblem.PERMISSION);
    assertThat(problems.latestReply()).isEqualTo("NOPERM no rights to run 'evalsha'");

    assertThat(calls.run(Script.LIMITER, KEYS, ARGS).join()).containsExactly(1L);
    assertThat(problems.latest()).isNull();
  }

  /** A call whose reply arrives just as its caller's wait ends: the timed wait completes it. */
  private static final class AnsweredAsTheWaitEnds extends CompletableFuture<List<Object>> {
    private final Exception endOfWait;

    AnsweredAsTheWaitEnds(Exception endOfWait) {
      this.endOfWait = endOfWait;
    }

    @Override
    public List<Object> get(long timeout, TimeUnit unit)
        throws InterruptedException, ExecutionException, TimeoutException {
      complete(List.of(7L));
      if (endOfWait instanceof InterruptedException e) {
        throw e;
      }
      throw (TimeoutException) endOfWait;
    }
  }

  @Test
  void await_replyArrivesAsTheWaitTimesOut_replyReturnedAndNoRefresh() throws Exception {
    HookedClient client = new HookedClient();
    client.cluster = true;
    ScriptCalls calls = new ScriptCalls(client);

    assertThat(calls.await(new AnsweredAsTheWaitEnds(new TimeoutException()), 1))
        .containsExactly(7L);
    assertThat(Thread.currentThread().isInterrupted()).isFalse();
    assertThat(client.refreshes).as("the call was answered").isZero();
  }

  @Test
  void await_replyArrivesAsTheWaitIsInterrupted_replyReturnedAndInterruptKept() throws Exception {
    ScriptCalls calls = new ScriptCalls(new HookedClient());
    try {
      assertThat(calls.await(new AnsweredAsTheWaitEnds(new InterruptedException()), 1))
          .containsExactly(7L);
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
  }

  @Test
  void await_interrupted_callCancelledAndNoRefresh() {
    HookedClient client = new HookedClient();
    client.cluster = true;
    ScriptCalls calls = new ScriptCalls(client);
    CompletableFuture<List<Object>> call = calls.run(Script.LIMITER, KEYS, ARGS);

    Thread.currentThread().interrupt();
    try {
      assertThatThrownBy(() -> calls.await(call, TimeUnit.SECONDS.toNanos(10)))
          .isInstanceOf(InterruptedException.class);
    } finally {
      Thread.interrupted();
    }
    assertThat(call).isCancelled();
    assertThat(client.attempts.get(0)).isCancelled();
    assertThat(client.refreshes).as("an interrupt is not a call without an answer").isZero();
  }

  @Test
  void within_timedOutOnCluster_asksForOneRefresh() {
    HookedClient client = new HookedClient();
    client.cluster = true;
    ScriptCalls calls = new ScriptCalls(client);

    CompletableFuture<List<Object>> call =
        calls.within(calls.run(Script.LIMITER, KEYS, ARGS), TimeUnit.MILLISECONDS.toNanos(20));

    await().atMost(Duration.ofSeconds(10)).until(call::isDone);
    assertThatThrownBy(call::join).cause().isInstanceOf(TimeoutException.class);
    await().atMost(Duration.ofSeconds(10)).until(() -> client.attempts.get(0).isCancelled());
    assertThat(client.refreshes).as("the timeout, not the dropped attempt").isEqualTo(1);
  }

  @Test
  void noAnswer_refreshThrows_callFailsWithItsOwnCause() {
    HookedClient client =
        new HookedClient() {
          @Override
          public void refreshTopology() {
            refreshes++;
            throw new IllegalStateException("closing");
          }
        };
    client.cluster = true;
    IllegalStateException dropped = new IllegalStateException("connection dropped");
    client.onSend = () -> CompletableFuture.failedFuture(dropped);

    CompletableFuture<List<Object>> call = new ScriptCalls(client).run(Script.LIMITER, KEYS, ARGS);

    assertThat(client.refreshes).isEqualTo(1);
    assertThatThrownBy(call::join).cause().isSameAs(dropped);
  }

  @Test
  void unwrap_nestedCompletionExceptions_theInnermostCause() {
    IllegalStateException cause = new IllegalStateException("x");
    assertThat(ScriptCalls.unwrap(new CompletionException(new CompletionException(cause))))
        .isSameAs(cause);
    CompletionException bare = new CompletionException("no cause", null);
    assertThat(ScriptCalls.unwrap(bare)).isSameAs(bare);
    assertThat(ScriptCalls.unwrap(cause)).isSameAs(cause);
    assertThat(ScriptCalls.unwrap(null)).isNull();
  }
}
