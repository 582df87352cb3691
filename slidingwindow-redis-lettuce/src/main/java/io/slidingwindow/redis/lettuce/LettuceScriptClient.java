package io.slidingwindow.redis.lettuce;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.slidingwindow.redis.ScriptClient;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * {@link ScriptClient} over Lettuce's asynchronous scripting commands. Lettuce answers MULTI
 * replies with Longs and Strings, and reports every error reply of Redis as a {@link
 * RedisCommandExecutionException}; anything else is a call without an answer. Thread-safe.
 */
final class LettuceScriptClient implements ScriptClient {

  private final StatefulConnection<String, String> connection;
  private final RedisScriptingAsyncCommands<String, String> commands;

  /** Starts a refresh of the Cluster client's topology in the background; null when not Cluster. */
  private final Runnable topologyRefresh;

  /**
   * Scripts sent through {@code commands} of {@code connection}; {@code topologyRefresh} starts a
   * refresh of a Cluster client's topology, null when not Cluster.
   */
  LettuceScriptClient(
      StatefulConnection<String, String> connection,
      RedisScriptingAsyncCommands<String, String> commands,
      Runnable topologyRefresh) {
    this.connection = connection;
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
   * Starts a refresh of the Cluster client's topology, in the background: the caller does not wait
   * for it.
   *
   * <p>Lettuce routes a slot by its current view of the topology, reads the view again only on its
   * own triggers (periodically, MOVED or ASK replies, reconnect attempts), and keeps a view read
   * while a failover was under way, which still names the dead master, until the next one. Each
   * refresh started here reads the nodes' views, installs one in the connection and clears its
   * slot-to-connection cache, so once the nodes agree on the promoted replica the next failed call
   * brings the slot's calls there.
   */
  @Override
  public void refreshTopology() {
    if (topologyRefresh != null) {
      topologyRefresh.run();
    }
  }

  @Override
  public boolean isCluster() {
    return topologyRefresh != null;
  }

  /** For diagnostics: on Cluster, the client's view of the slots and nodes. */
  @Override
  public String toString() {
    return connection instanceof StatefulRedisClusterConnection<String, String> cluster
        ? "Lettuce cluster connection, partitions " + cluster.getPartitions()
        : "Lettuce connection " + connection;
  }
}
