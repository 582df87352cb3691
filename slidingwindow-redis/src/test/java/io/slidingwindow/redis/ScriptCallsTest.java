package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.slidingwindow.redis.ScriptCalls.Next;
import io.slidingwindow.testkit.FakeTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The retry decisions of a script call, and a call whose caller stopped waiting. No network. */
class ScriptCallsTest {

  @Test
  void next_noAnswer_neverRetried() {
    for (int left = 0; left <= ScriptCalls.TRYAGAIN_RETRIES; left++) {
      assertThat(ScriptCalls.next(null, false, left)).isEqualTo(Next.FAIL);
      assertThat(ScriptCalls.next(null, true, left)).isEqualTo(Next.FAIL);
    }
  }

  @Test
  void next_noScript_evalOnceOnly() {
    assertThat(ScriptCalls.next("NOSCRIPT No matching script", false, 2)).isEqualTo(Next.EVAL);
    assertThat(ScriptCalls.next("NOSCRIPT No matching script", false, 0)).isEqualTo(Next.EVAL);
    assertThat(ScriptCalls.next("NOSCRIPT No matching script", true, 2)).isEqualTo(Next.FAIL);
  }

  @Test
  void next_tryAgain_retriedWhileRetriesLeftWhicheverCommand() {
    assertThat(ScriptCalls.next("TRYAGAIN Multiple keys", false, 2)).isEqualTo(Next.AGAIN);
    assertThat(ScriptCalls.next("TRYAGAIN Multiple keys", true, 1)).isEqualTo(Next.AGAIN);
    assertThat(ScriptCalls.next("TRYAGAIN Multiple keys", false, 0)).isEqualTo(Next.FAIL);
    assertThat(ScriptCalls.next("TRYAGAIN Multiple keys", true, 0)).isEqualTo(Next.FAIL);
  }

  @Test
  void next_otherErrorReplies_notRetried() {
    for (String reply : List.of("WRONGTYPE Operation", "ERR x", "", "CLUSTERDOWN", "MOVED 1 h:1")) {
      assertThat(ScriptCalls.next(reply, false, 2)).as(reply).isEqualTo(Next.FAIL);
    }
  }

  /** A client whose every call is answered TRYAGAIN. */
  private static final class TryAgainClient implements ScriptClient {
    final List<String> sent = Collections.synchronizedList(new ArrayList<>());
    final List<String> refreshes = Collections.synchronizedList(new ArrayList<>());

    @Override
    public CompletableFuture<List<Object>> evalsha(String sha1, String[] keys, String[] args) {
      sent.add("EVALSHA");
      return CompletableFuture.failedFuture(new IllegalStateException("TRYAGAIN"));
    }

    @Override
    public CompletableFuture<List<Object>> eval(String script, String[] keys, String[] args) {
      sent.add("EVAL");
      return CompletableFuture.failedFuture(new IllegalStateException("TRYAGAIN"));
    }

    @Override
    public String errorReply(Throwable failure) {
      return failure.getMessage();
    }

    @Override
    public void refreshTopology() {
      refreshes.add("refresh");
    }

    @Override
    public boolean isCluster() {
      return true;
    }
  }

  @Test
  void run_callerStopsWaitingDuringTheTryAgainPause_noRetrySent() {
    TryAgainClient client = new TryAgainClient();
    List<Runnable> paused = new ArrayList<>();
    CompletableFuture<List<Object>> call =
        new ScriptCalls(client, new ProblemReport("test"), paused::add, new FakeTicker())
            .run(Script.LIMITER, new String[] {"k"}, new String[] {"a"});
    assertThat(paused).as("the resend waits for the pause").hasSize(1);

    assertThat(call.cancel(false)).isTrue();
    paused.get(0).run(); // the pause ends

    assertThat(client.sent).containsExactly("EVALSHA");
    assertThat(client.refreshes).isEmpty();
  }

  @Test
  void run_callerStillWaitingAfterTheTryAgainPause_sentAgain() {
    TryAgainClient client = new TryAgainClient();
    List<Runnable> paused = new ArrayList<>();
    CompletableFuture<List<Object>> call =
        new ScriptCalls(client, new ProblemReport("test"), paused::add, new FakeTicker())
            .run(Script.LIMITER, new String[] {"k"}, new String[] {"a"});

    paused.get(0).run();

    assertThat(client.sent).containsExactly("EVALSHA", "EVALSHA");
    assertThat(call).isNotDone();
  }

  @Test
  void run_tryAgainEveryTime_sentThreeTimesThenFailsWithTheReply() {
    TryAgainClient client = new TryAgainClient();
    CompletableFuture<List<Object>> call =
        new ScriptCalls(client).run(Script.LIMITER, new String[] {"k"}, new String[] {"a"});
    await().atMost(Duration.ofSeconds(2)).until(call::isDone);
    assertThat(call).isCompletedExceptionally();
    assertThat(client.sent).containsExactly("EVALSHA", "EVALSHA", "EVALSHA");
    assertThat(client.refreshes).as("an error reply is an answer").isEmpty();
  }

  /** A client whose calls are sent and never answered; it keeps what it sent. */
  private static final class SilentClient implements ScriptClient {
    final List<CompletableFuture<List<Object>>> sent =
        Collections.synchronizedList(new ArrayList<>());

    @Override
    public CompletableFuture<List<Object>> evalsha(String sha1, String[] keys, String[] args) {
      CompletableFuture<List<Object>> onTheWire = new CompletableFuture<>();
      sent.add(onTheWire);
      return onTheWire;
    }

    @Override
    public CompletableFuture<List<Object>> eval(String script, String[] keys, String[] args) {
      return evalsha(null, keys, args);
    }

    @Override
    public String errorReply(Throwable failure) {
      return null;
    }

    @Override
    public void refreshTopology() {
      throw new AssertionError("not a Cluster");
    }

    @Override
    public boolean isCluster() {
      return false;
    }
  }

  @Test
  void await_timedOut_cancelsTheCommandOnTheWireSoNoReconnectResendsIt() throws Exception {
    SilentClient client = new SilentClient();
    ScriptCalls calls = new ScriptCalls(client);

    CompletableFuture<List<Object>> call =
        calls.run(Script.LIMITER, new String[] {"k"}, new String[0]);
    try {
      calls.await(call, Duration.ofMillis(20).toNanos());
    } catch (java.util.concurrent.TimeoutException expected) {
      // the caller gives up; the command must not stay queued
    }

    assertThat(client.sent).hasSize(1);
    assertThat(client.sent.get(0)).isCancelled();
  }

  @Test
  void within_timedOut_cancelsTheCommandOnTheWire() {
    SilentClient client = new SilentClient();
    ScriptCalls calls = new ScriptCalls(client);

    CompletableFuture<List<Object>> call =
        calls.within(
            calls.run(Script.LIMITER, new String[] {"k"}, new String[0]),
            Duration.ofMillis(20).toNanos());

    await().atMost(Duration.ofSeconds(10)).until(call::isDone);
    assertThat(call).isCompletedExceptionally();
    assertThat(client.sent).hasSize(1);
    await().atMost(Duration.ofSeconds(10)).until(() -> client.sent.get(0).isCancelled());
  }

  /**
   * On Cluster, calls without an answer ask for a topology refresh at most once per interval of the
   * ticker, whichever way they ended (no answer from the client, or a timeout of the caller's).
   */
  @Test
  void noAnswerOnCluster_refreshAtMostOncePerInterval() throws Exception {
    FakeTicker ticker = new FakeTicker();
    ScriptedClient client = ScriptedClient.onCluster();
    ScriptCalls calls = new ScriptCalls(client, new ProblemReport("test"), Runnable::run, ticker);
    for (int i = 0; i < 5; i++) {
      assertThat(calls.run(Script.LIMITER, new String[] {"k"}, new String[0]))
          .isCompletedExceptionally(); // the scripted connection is dropped
    }
    assertThat(client.topologyRefreshes).as("the first asks at once").hasValue(1);
    ticker.advance(ScriptCalls.REFRESH_INTERVAL_NANOS - 1);
    var unused = calls.run(Script.LIMITER, new String[] {"k"}, new String[0]);
    assertThat(client.topologyRefreshes).hasValue(1);
    ticker.advance(1);
    try {
      calls.await(new java.util.concurrent.CompletableFuture<>(), 1_000_000);
    } catch (java.util.concurrent.TimeoutException expected) {
      // a timeout is a call without an answer too
    }
    assertThat(client.topologyRefreshes).hasValue(2);
  }

  @Test
  void errorRepliesOrNotCluster_neverAskForARefresh() {
    ScriptedClient cluster = ScriptedClient.onCluster(new ScriptedClient.ErrorReply("WRONGTYPE x"));
    var unused =
        new ScriptCalls(cluster, new ProblemReport("test"), Runnable::run, new FakeTicker())
            .run(Script.LIMITER, new String[] {"k"}, new String[0]);
    assertThat(cluster.topologyRefreshes).as("an error reply is an answer").hasValue(0);

    ScriptedClient standalone = new ScriptedClient();
    var dropped =
        new ScriptCalls(standalone, new ProblemReport("test"), Runnable::run, new FakeTicker())
            .run(Script.LIMITER, new String[] {"k"}, new String[0]);
    assertThat(dropped).isCompletedExceptionally();
    assertThat(standalone.topologyRefreshes).as("not a Cluster").hasValue(0);
  }
}
