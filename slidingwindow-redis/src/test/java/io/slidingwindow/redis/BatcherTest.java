package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.Limit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * How the batcher shares script calls among waiting requests: at most two calls on their way, at
 * most 64 requests a call, what queued meanwhile sent when a call returns and before its callers
 * wake, requests whose callers stopped waiting dropped, and each request handed its own part of the
 * reply. Over a client whose calls the test answers; no network.
 */
class BatcherTest {

  /** One call the batcher sent, answered when the test says. */
  private record Sent(String[] keys, String[] args, CompletableFuture<List<Object>> reply) {}

  /**
   * A client that keeps every call it is sent; the first {@code answeredAtOnce} calls are answered
   * before the send returns, with one granted reply of three values per request.
   */
  private static final class HeldClient implements ScriptClient {
    final List<Sent> sent = new ArrayList<>();
    final AtomicInteger answeredAtOnce = new AtomicInteger();
    volatile Runnable whileSending = () -> {};

    @Override
    public synchronized CompletableFuture<List<Object>> evalsha(
        String sha1, String[] keys, String[] args) {
      CompletableFuture<List<Object>> reply = new CompletableFuture<>();
      sent.add(new Sent(keys, args, reply));
      whileSending.run();
      if (answeredAtOnce.getAndDecrement() > 0) {
        reply.complete(granted(keys.length));
      }
      return reply;
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
      throw new AssertionError("not a Cluster");
    }

    @Override
    public boolean isCluster() {
      return false;
    }

    synchronized Sent call(int i) {
      return sent.get(i);
    }

    synchronized int calls() {
      return sent.size();
    }
  }

  /** A granted reply without figures for each of {@code requests} requests, values 0, 1, 2... */
  private static List<Object> granted(int requests) {
    return values(3 * requests);
  }

  /** A reply of {@code values} values: 0, 1, 2... */
  private static List<Object> values(int values) {
    List<Object> reply = new ArrayList<>();
    for (long v = 0; v < values; v++) {
      reply.add(v);
    }
    return reply;
  }

  private static final LimiterScript ONE_LIMIT =
      new LimiterScript(List.of(Limit.of(5, Duration.ofMinutes(1))), false, true);

  private static final int TEMPLATE = ONE_LIMIT.args(List.of()).length;

  private final HeldClient client = new HeldClient();
  private final Batcher batcher = new Batcher(new ScriptCalls(client), ONE_LIMIT);

  private static Batcher.Request request(String id) {
    return request(id, 3);
  }

  private static Batcher.Request request(String id, int replySize) {
    return new Batcher.Request(new String[] {id}, "2", "1000", replySize);
  }

  @Test
  void submit_alone_sentAtOnceAloneAndHandedItsReply() {
    Batcher.Request a = request("a");
    assertThat(batcher.submit(a)).isSameAs(a);
    assertThat(client.calls()).isEqualTo(1);
    assertThat(client.call(0).keys()).containsExactly("a");
    assertThat(Arrays.copyOfRange(client.call(0).args(), TEMPLATE, client.call(0).args().length))
        .containsExactly("2", "1000");
    assertThat(a).isNotDone();

    client.call(0).reply().complete(List.of(1L, 5L, 0L));

    assertThat(a.join()).containsExactly(1L, 5L, 0L);
    assertThat(batcher.queued()).isZero();
  }

  @Test
  void submit_twoCallsOnTheirWay_othersQueueUntilOneReturnsThenGoTogetherInOrder() {
    Batcher.Request a = request("a");
    Batcher.Request b = request("b");
    batcher.submit(a);
    batcher.submit(b);
    assertThat(client.calls()).as("two calls may be on their way").isEqualTo(2);

    List<Batcher.Request> waiting = List.of(request("c"), request("d"), request("e"));
    waiting.forEach(batcher::submit);
    assertThat(client.calls()).as("a third waits").isEqualTo(2);
    assertThat(batcher.queued()).isEqualTo(3);

    List<Integer> callsWhenAWoke = new ArrayList<>();
    var unused = a.thenRun(() -> callsWhenAWoke.add(client.calls()));
    client.call(0).reply().complete(granted(1));

    assertThat(callsWhenAWoke).as("what queued is sent before a's caller wakes").containsExactly(3);
    assertThat(client.call(2).keys()).containsExactly("c", "d", "e");
    assertThat(batcher.queued()).isZero();
    assertThat(b).isNotDone();

    client.call(2).reply().complete(granted(3));
    assertThat(waiting.get(0).join()).containsExactly(0L, 1L, 2L);
    assertThat(waiting.get(1).join()).containsExactly(3L, 4L, 5L);
    assertThat(waiting.get(2).join()).containsExactly(6L, 7L, 8L);
  }

  @Test
  void submit_moreThanOneCallCarries_sixtyFourACall() {
    batcher.submit(request("a"));
    batcher.submit(request("b"));
    int queued = Batcher.MAX_REQUESTS + 6;
    IntStream.range(0, queued).forEach(i -> batcher.submit(request("q" + i)));
    assertThat(batcher.queued()).isEqualTo(queued);

    client.call(0).reply().complete(granted(1));
    assertThat(client.calls()).isEqualTo(3);
    assertThat(client.call(2).keys())
        .hasSize(Batcher.MAX_REQUESTS)
        .startsWith("q0")
        .endsWith("q63");
    assertThat(client.call(2).args()).hasSize(TEMPLATE + 2 * Batcher.MAX_REQUESTS);
    assertThat(batcher.queued()).isEqualTo(6);

    client.call(1).reply().complete(granted(1));
    assertThat(client.calls()).isEqualTo(4);
    assertThat(client.call(3).keys()).containsExactly("q64", "q65", "q66", "q67", "q68", "q69");
  }

  @Test
  void submit_callerStoppedWaitingBeforeItsCallWent_dropped() {
    batcher.submit(request("a"));
    batcher.submit(request("b"));
    Batcher.Request c = request("c");
    Batcher.Request d = request("d");
    batcher.submit(c);
    batcher.submit(d);
    c.cancel(false);

    client.call(0).reply().complete(granted(1));

    assertThat(client.call(2).keys()).containsExactly("d");
  }

  /**
   * Two calls that never come back (written as Redis died: a client may hold them for a reconnect,
   * or until its own backstop) must not hold both places on the way once their callers gave up:
   * else every later request waits in the queue, and every caller times out into the failure
   * policy, long after Redis is back.
   */
  @Test
  void submit_everyCallerOfACallOnItsWayStoppedWaiting_theCallIsDroppedAndItsPlaceFreed() {
    Batcher.Request a = request("a");
    Batcher.Request b = request("b");
    batcher.submit(a);
    batcher.submit(b);
    Batcher.Request c = request("c");
    batcher.submit(c);
    assertThat(client.calls()).isEqualTo(2);

    a.cancel(false);
    assertThat(client.call(0).reply())
        .as("the call of a caller that stopped waiting is dropped, not sent again later")
        .isCancelled();
    assertThat(client.calls()).as("its place on the way goes to what waits").isEqualTo(3);
    assertThat(client.call(2).keys()).containsExactly("c");

    b.cancel(false);
    Batcher.Request d = request("d");
    batcher.submit(d);
    assertThat(client.calls()).isEqualTo(4);
    assertThat(client.call(3).keys()).containsExactly("d");
    client.call(3).reply().complete(granted(1));
    assertThat(d.join()).containsExactly(0L, 1L, 2L);
  }

  /** An asynchronous caller gives up by a timeout, which completes its request exceptionally. */
  @Test
  void submit_everyCallerOfACallTimedOut_theCallIsDroppedAndItsPlaceFreed() {
    Batcher.Request a = request("a");
    batcher.submit(a);
    batcher.submit(request("b"));
    Batcher.Request c = request("c");
    batcher.submit(c);

    a.completeExceptionally(new TimeoutException());

    assertThat(client.call(0).reply()).isCancelled();
    assertThat(client.calls()).isEqualTo(3);
    assertThat(client.call(2).keys()).containsExactly("c");
  }

  /** A caller that gives up while its call is being sent, before the request knows its call. */
  @Test
  void submit_callerGaveUpWhileItsCallWasBeingSent_theCallIsDroppedOnceSent() {
    Batcher.Request a = request("a");
    client.whileSending = () -> a.cancel(false);

    batcher.submit(a);

    assertThat(client.calls()).isEqualTo(1);
    assertThat(client.call(0).reply()).isCancelled();
    client.whileSending = () -> {};
    batcher.submit(request("b"));
    batcher.submit(request("c"));
    assertThat(client.calls()).as("both places on the way are free").isEqualTo(3);
  }

  @Test
  void submit_oneCallerOfASharedCallStoppedWaiting_theCallGoesOnForTheOthers() {
    batcher.submit(request("a"));
    batcher.submit(request("b"));
    Batcher.Request c = request("c");
    Batcher.Request d = request("d");
    batcher.submit(c);
    batcher.submit(d);
    client.call(0).reply().complete(granted(1));
    assertThat(client.call(2).keys()).containsExactly("c", "d");

    c.cancel(false);

    assertThat(client.call(2).reply()).as("d still waits for it").isNotDone();
    client.call(2).reply().complete(granted(2));
    assertThat(d.join()).containsExactly(3L, 4L, 5L);
  }

  @Test
  void submit_everyQueuedCallerStoppedWaiting_nothingSentAndCallsStillGo() {
    Batcher.Request gone = request("gone");
    gone.cancel(false);

    assertThat(batcher.submit(gone)).isSameAs(gone);

    assertThat(client.calls()).isZero();
    batcher.submit(request("a"));
    batcher.submit(request("b"));
    assertThat(client.calls()).as("the empty turn took no place on the way").isEqualTo(2);
  }

  @Test
  void submit_callsAnsweredAtOnce_eachLeavesItsPlaceOnce() {
    client.answeredAtOnce.set(2);
    Batcher.Request a = request("a");
    Batcher.Request b = request("b");
    batcher.submit(a);
    batcher.submit(b);
    assertThat(a.join()).containsExactly(0L, 1L, 2L);
    assertThat(b.join()).containsExactly(0L, 1L, 2L);

    batcher.submit(request("c"));
    batcher.submit(request("d"));
    batcher.submit(request("e"));

    assertThat(client.calls()).as("two on their way, no more").isEqualTo(4);
    assertThat(batcher.queued()).isEqualTo(1);
  }

  @Test
  void finish_requestsOfDifferentReplySizes_eachItsOwnSlice() {
    batcher.submit(request("a"));
    batcher.submit(request("b"));
    Batcher.Request small = request("small", 3);
    Batcher.Request large = request("large", 7);
    batcher.submit(small);
    batcher.submit(large);
    client.call(0).reply().complete(granted(1));

    client.call(2).reply().complete(values(10));

    assertThat(small.join()).containsExactly(0L, 1L, 2L);
    assertThat(large.join()).containsExactly(3L, 4L, 5L, 6L, 7L, 8L, 9L);
  }

  @Test
  void finish_replyShorterThanTheRequests_theUnansweredFail() {
    batcher.submit(request("a"));
    batcher.submit(request("b"));
    Batcher.Request first = request("first");
    Batcher.Request second = request("second");
    batcher.submit(first);
    batcher.submit(second);
    client.call(0).reply().complete(granted(1));

    client.call(2).reply().complete(values(5));

    assertThat(first.join()).containsExactly(0L, 1L, 2L);
    assertThatThrownBy(second::join)
        .isInstanceOf(CompletionException.class)
        .cause()
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("the script answered 5 values for 2 requests");
  }

  @Test
  void finish_callFailed_everyRequestFailsWithTheReply() {
    batcher.submit(request("a"));
    batcher.submit(request("b"));
    Batcher.Request c = request("c");
    Batcher.Request d = request("d");
    batcher.submit(c);
    batcher.submit(d);
    client.call(0).reply().complete(granted(1));

    ScriptedClient.ErrorReply wrongType = new ScriptedClient.ErrorReply("WRONGTYPE Operation");
    client.call(2).reply().completeExceptionally(wrongType);

    for (Batcher.Request r : List.of(c, d)) {
      assertThatThrownBy(r::join)
          .isInstanceOf(CompletionException.class)
          .cause()
          .isSameAs(wrongType);
    }
  }

  @Test
  void send_severalKeysARequest_keysAndArgumentsInRequestOrder() {
    LimiterScript twoLimits =
        new LimiterScript(
            List.of(Limit.of(5, Duration.ofMinutes(1)), Limit.of(50, Duration.ofHours(1))),
            false,
            true);
    int template = twoLimits.args(List.of()).length;
    Batcher two = new Batcher(new ScriptCalls(client), twoLimits);
    two.submit(new Batcher.Request(new String[] {"a1", "a2"}, "2", "10", 3));
    two.submit(new Batcher.Request(new String[] {"b1", "b2"}, "3", "11", 3));
    two.submit(new Batcher.Request(new String[] {"c1", "c2"}, "4", "12", 3));
    two.submit(new Batcher.Request(new String[] {"d1", "d2"}, "7", "13", 7));

    client.call(0).reply().complete(granted(1));

    Sent shared = client.call(2);
    assertThat(shared.keys()).containsExactly("c1", "c2", "d1", "d2");
    assertThat(Arrays.copyOfRange(shared.args(), template, shared.args().length))
        .containsExactly("4", "12", "7", "13");
    assertThat(Arrays.copyOf(shared.args(), template))
        .containsExactly(Arrays.copyOf(twoLimits.args(List.of()), template));
  }
}
