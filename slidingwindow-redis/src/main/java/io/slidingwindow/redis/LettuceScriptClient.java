package io.slidingwindow.redis;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@link ScriptClient} over Lettuce's asynchronous scripting commands. Lettuce answers MULTI
 * replies with Longs and Strings, and reports every error reply of Redis as a {@link
 * RedisCommandExecutionException}; anything else is a call without an answer. Thread-safe.
 */
final class LettuceScriptClient implements ScriptClient {

  /** The least time between two topology refreshes that failed calls ask for. */
  private static final long REFRESH_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final RedisScriptingAsyncCommands<String, String> commands;

  /** Starts a refresh of the Cluster client's topology in the background; null when not Cluster. */
  private final Runnable topologyRefresh;

  /** When a failed call last asked for a topology refresh (System.nanoTime). */
  private final AtomicLong lastRefresh = new AtomicLong(System.nanoTime() - REFRESH_INTERVAL_NANOS);

  LettuceScriptClient(
      RedisScriptingAsyncCommands<String, String> commands, Runnable topologyRefresh) {
    this.commands = commands;
    this.topologyRefresh = topologyRefresh;
  }

  @Override
  public CompletableFuture<List<Object>> evalsha(String sha1, String[] keys, String[] args) {
    return commands
        .<List<Object>>evalsha(sha1, ScriptOutputType.MULTI, keys, args)
        .toCompletableFuture();
  }

  @Override
  public CompletableFuture<List<Object>> eval(String script, String[] keys, String[] args) {
    return commands
        .<List<Object>>eval(script, ScriptOutputType.MULTI, keys, args)
        .toCompletableFuture();
  }

  @Override
  public String errorReply(Throwable failure) {
    if (!(failure instanceof RedisCommandExecutionException)) {
      return null;
    }
    return failure.getMessage() == null ? "" : failure.getMessage();
  }

  /**
   * On Cluster, starts a refresh of the client's topology, at most one a second. The refresh runs
   * in the background: the caller does not wait for it, and a refresh that fails is left to the
   * next failed call.
   *
   * <p>Lettuce routes a slot by its current view of the topology, reads the view again only on its
   * own triggers (periodically, MOVED or ASK replies, reconnect attempts), and keeps a view read
   * while a failover was under way, which still names the dead master, until the next one. Each
   * refresh started here reads the nodes' views, installs one in the connection and clears its
   * slot-to-connection cache, so once the nodes agree on the promoted replica the next failed call
   * brings the slot's calls there.
   */
  @Override
  public void onNoAnswer(Throwable failure) {
    if (topologyRefresh == null || failure instanceof RedisCommandExecutionException) {
      return;
    }
    long last = lastRefresh.get();
    long now = System.nanoTime();
    if (now - last >= REFRESH_INTERVAL_NANOS && lastRefresh.compareAndSet(last, now)) {
      try {
        topologyRefresh.run();
      } catch (RuntimeException e) {
        // The backend is closing (the executor refuses work); nothing is left to refresh.
      }
    }
  }

  @Override
  public boolean isCluster() {
    return topologyRefresh != null;
  }
}
