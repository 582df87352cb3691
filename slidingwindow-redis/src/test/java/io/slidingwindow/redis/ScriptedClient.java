package io.slidingwindow.redis;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link ScriptClient} whose answers a test scripts, for tests without a network: each call takes
 * the next answer from a queue (a reply, an {@link ErrorReply}, or {@link #NO_ANSWER}: a stage that
 * never completes), and the client records which command each call was. With the queue empty, a
 * call fails as a dropped connection would.
 */
final class ScriptedClient implements ScriptClient {

  /** The answer of a call that Redis never answers. */
  static final Object NO_ANSWER = new Object();

  /** Redis's error reply, such as {@code "NOSCRIPT ..."}. */
  static final class ErrorReply extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ErrorReply(String reply) {
      super(reply);
    }
  }

  private final Deque<Object> answers = new ArrayDeque<>();
  final List<String> sent = Collections.synchronizedList(new ArrayList<>());
  final AtomicInteger topologyRefreshes = new AtomicInteger();
  private final boolean cluster;

  /** A standalone server's client that answers each call with the next of {@code answers}. */
  ScriptedClient(Object... answers) {
    this(false, answers);
  }

  private ScriptedClient(boolean cluster, Object[] answers) {
    this.cluster = cluster;
    this.answers.addAll(List.of(answers));
  }

  /** As {@link #ScriptedClient(Object...)}, of a Redis Cluster. */
  static ScriptedClient onCluster(Object... answers) {
    return new ScriptedClient(true, answers);
  }

  /** A backend over this client that owns nothing. */
  RedisBackend backend() {
    return RedisBackend.of(this, () -> {}, "scripted");
  }

  @Override
  public CompletableFuture<List<Object>> evalsha(String sha1, String[] keys, String[] args) {
    return answer("EVALSHA");
  }

  @Override
  public CompletableFuture<List<Object>> eval(String script, String[] keys, String[] args) {
    return answer("EVAL");
  }

  @SuppressWarnings("unchecked")
  private synchronized CompletableFuture<List<Object>> answer(String command) {
    sent.add(command.toUpperCase(Locale.ROOT));
    Object answer = answers.poll();
    if (answer == null) {
      return CompletableFuture.failedFuture(new IllegalStateException("connection dropped"));
    }
    if (answer instanceof Throwable failure) {
      return CompletableFuture.failedFuture(failure);
    }
    if (answer == NO_ANSWER) {
      return new CompletableFuture<>();
    }
    return CompletableFuture.completedFuture((List<Object>) answer);
  }

  @Override
  public String errorReply(Throwable failure) {
    return failure instanceof ErrorReply ? failure.getMessage() : null;
  }

  @Override
  public void refreshTopology() {
    topologyRefreshes.incrementAndGet();
  }

  @Override
  public boolean isCluster() {
    return cluster;
  }
}
