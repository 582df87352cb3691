package io.slidingwindow.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Sends the limiter requests that wait at the same moment in one script call.
 *
 * <p>A request joins a queue. While fewer than {@link #MAX_IN_FLIGHT} calls are on their way, the
 * thread that queued a request takes everything queued (at most {@link #MAX_REQUESTS}) and sends it
 * as one call; when a call's reply arrives, the thread that receives it (the client library's, or
 * with a blocking client the caller's own) sends what queued meanwhile, then hands each request its
 * part of the reply. A lone request is sent at once, alone; under load, requests share calls, which
 * saves a round trip's work per request on the client and on Redis. The script decides the requests
 * of one call one after the other, each on the state the ones before left, exactly as if they had
 * been sent one by one in that order.
 *
 * <p>A request whose caller stopped waiting (its future is done) before it was sent is dropped; one
 * already sent may still run, as any timed-out call may. A call all of whose callers stopped
 * waiting is cancelled, which frees its place on the way (see {@link Carried}). Requests of
 * different calls in flight at once may reach Redis in either order, so the order of concurrent
 * requests is not kept (a thread that waits for each answer before its next request is served in
 * order). Only for deployments where one call may hold keys of any slot: standalone and Sentinel,
 * not Cluster.
 */
final class Batcher {

  /** The most requests one call carries. */
  static final int MAX_REQUESTS = 64;

  /** The most calls on their way at once. */
  static final int MAX_IN_FLIGHT = 2;

  /** One request: its keys, its two script arguments, and its part of the reply once known. */
  static final class Request extends CompletableFuture<List<Object>> {
    final String[] keys;
    final String permitsAndFigures;
    final String now;
    final int replySize;

    /** The call carrying this request once it is on its way, with the others it carries. */
    private volatile Carried carried;

    Request(String[] keys, String permitsAndFigures, String now, int replySize) {
      this.keys = keys;
      this.permitsAndFigures = permitsAndFigures;
      this.now = now;
      this.replySize = replySize;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      boolean cancelled = super.cancel(mayInterruptIfRunning);
      gaveUp();
      return cancelled;
    }

    @Override
    public boolean completeExceptionally(Throwable ex) {
      boolean done = super.completeExceptionally(ex);
      gaveUp();
      return done;
    }

    private void gaveUp() {
      Carried call = carried;
      if (call != null) {
        call.dropIfAbandoned();
      }
    }
  }

  /**
   * A call on its way and the requests it carries. Once every one of them is done (their callers
   * timed out or gave up) the call is cancelled: the client drops its command rather than sending
   * it again after a reconnect (it may already have run), and its place on the way is freed at
   * once. Else a call that never comes back (written as Redis died, and held by the client for a
   * reconnect or until its own backstop) would keep its place, and with both places so held every
   * later request would wait in the queue until its caller timed out into the failure policy, long
   * after Redis is back. The freed place is filled at once by the thread that gave up last: a
   * caller's, or for an asynchronous caller's timeout the JDK's timer thread; sending never blocks
   * there with Lettuce, and a blocking client's call blocks no longer than the caller would have.
   */
  private record Carried(List<Request> batch, CompletableFuture<List<Object>> call) {
    void dropIfAbandoned() {
      if (call.isDone()) {
        return;
      }
      for (Request request : batch) {
        if (!request.isDone()) {
          return;
        }
      }
      call.cancel(false);
    }
  }

  private final ScriptCalls calls;
  private final LimiterScript script;
  private final ConcurrentLinkedQueue<Request> queue = new ConcurrentLinkedQueue<>();
  private final AtomicInteger inFlight = new AtomicInteger();

  Batcher(ScriptCalls calls, LimiterScript script) {
    this.calls = calls;
    this.script = script;
  }

  /** How many requests wait for a call to carry them (for tests that hold Redis still). */
  int queued() {
    return queue.size();
  }

  /** Queues {@code request} and sends it, with whatever else waits, as soon as a call may go. */
  CompletableFuture<List<Object>> submit(Request request) {
    queue.add(request);
    drain();
    return request;
  }

  private void drain() {
    while (!queue.isEmpty()) {
      int calls = inFlight.get();
      if (calls >= MAX_IN_FLIGHT) {
        return; // the call that returns next sends what is queued
      }
      if (!inFlight.compareAndSet(calls, calls + 1)) {
        continue;
      }
      List<Request> batch = new ArrayList<>();
      CompletableFuture<List<Object>> sent = null;
      boolean doneAtOnce = true;
      try {
        for (Request r; batch.size() < MAX_REQUESTS && (r = queue.poll()) != null; ) {
          if (!r.isDone()) {
            batch.add(r);
          }
        }
        if (!batch.isEmpty()) {
          sent = send(batch);
          doneAtOnce = sent.isDone();
        }
      } finally {
        if (doneAtOnce) {
          // Nothing sent, or the call failed (or was answered) at once: it is finished here, and
          // the loop goes on, rather than a callback that would drain again from inside this one.
          inFlight.decrementAndGet();
        }
      }
      if (sent == null) {
        continue;
      }
      CompletableFuture<List<Object>> call = sent;
      if (doneAtOnce) {
        finish(batch, call);
        continue;
      }
      var unused =
          call.whenComplete(
              (reply, error) -> {
                inFlight.decrementAndGet();
                try {
                  drain(); // send what queued meanwhile before waking this batch's callers
                } finally {
                  finish(batch, call);
                }
              });
      Carried carried = new Carried(batch, call);
      for (Request request : batch) {
        request.carried = carried;
      }
      carried.dropIfAbandoned(); // every caller may have given up before it could see the call
    }
  }

  private CompletableFuture<List<Object>> send(List<Request> batch) {
    int keysPerRequest = batch.get(0).keys.length;
    String[] keys = new String[batch.size() * keysPerRequest];
    List<String[]> requests = new ArrayList<>(batch.size());
    for (int r = 0; r < batch.size(); r++) {
      Request request = batch.get(r);
      System.arraycopy(request.keys, 0, keys, r * keysPerRequest, keysPerRequest);
      requests.add(new String[] {request.permitsAndFigures, request.now});
    }
    try {
      return calls.run(Script.LIMITER, keys, script.args(requests));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** Hands each request of {@code batch} its part of the call's reply, or the call's failure. */
  private static void finish(List<Request> batch, CompletableFuture<List<Object>> call) {
    List<Object> reply;
    try {
      reply = call.join();
    } catch (RuntimeException e) {
      Throwable error = ScriptCalls.unwrap(e);
      for (Request request : batch) {
        request.completeExceptionally(error);
      }
      return;
    }
    int offset = 0;
    for (Request request : batch) {
      if (reply.size() < offset + request.replySize) {
        request.completeExceptionally(
            new IllegalStateException(
                "the script answered "
                    + reply.size()
                    + " values for "
                    + batch.size()
                    + " requests"));
      } else {
        request.complete(reply.subList(offset, offset + request.replySize));
      }
      offset += request.replySize;
    }
  }
}
