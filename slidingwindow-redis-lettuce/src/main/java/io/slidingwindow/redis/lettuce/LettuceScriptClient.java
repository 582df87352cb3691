package io.slidingwindow.redis.lettuce;

import io.lettuce.core.CommandListenerWriter;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisChannelWriter;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandExpiryWriter;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.DefaultEndpoint;
import io.netty.buffer.ByteBuf;
import io.slidingwindow.redis.ScriptClient;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * {@link ScriptClient} over Lettuce: {@code EVAL} and {@code EVALSHA} dispatched as Lettuce's
 * asynchronous scripting commands are. Lettuce answers MULTI replies with Longs and Strings, and
 * reports every error reply of Redis as a {@link RedisCommandExecutionException}; anything else is
 * a call without an answer. Thread-safe.
 *
 * <p>A call is written once. Lettuce, when a connection drops, keeps the commands that were on the
 * wire and writes them again once it has reconnected (its "at least once" mode, the one that comes
 * with reconnecting): a script that ran before the connection dropped would then run twice, and a
 * refund give its permits back twice. So the client registers {@link #lostConnections} with the
 * Lettuce client, and when one of its connections drops, every call still waiting for its reply
 * fails at once with a {@link RedisConnectionException} (a call without an answer, which the caller
 * treats as one that may have run); Lettuce drops a failed command instead of writing it again, and
 * where it writes one anyway (on Cluster) the command writes {@code PING} in its place ({@link
 * Once}). Lettuce tells the drop before it starts to reconnect, on the connection's event loop. On
 * Cluster the drop of any connection of the client (each node has its own) fails every call
 * waiting, on any node: which node a call went to is not known here.
 *
 * <p>On Sentinel, a {@code READONLY} reply means the connection reaches a replica: a master demoted
 * by {@code REPLICAOF} keeps its clients connected, and Lettuce asks Sentinel for the master only
 * when it connects. The client then drops the connection's channel ({@link
 * DefaultEndpoint#disconnect()}, which leaves the connection open), so that Lettuce reconnects
 * (through Sentinel where configured, to the current master); at most once per {@link
 * #READONLY_DROP_INTERVAL_NANOS}, so that a Redis that stays read-only is not reconnected to at
 * full rate. The call that got the reply fails as it is (it did not run) and is not sent again.
 *
 * <p>On Cluster, a call for a master whose connection is still being opened waits for that connect
 * before it is dispatched ({@link #masterConnecting}), since Lettuce 7 rejects it otherwise.
 */
final class LettuceScriptClient implements ScriptClient {

  /**
   * What a call writes in place of its script once it has ended: a command that changes nothing.
   */
  private static final byte[] PING = "*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII);

  /** How long after dropping the connection for a READONLY reply the next such drop waits. */
  static final long READONLY_DROP_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final StatefulConnection<String, String> connection;

  /** Drops the connection's channel so that Lettuce reconnects; null on other than Sentinel. */
  private final Runnable dropChannel;

  private final LongSupplier nanoTime;

  /** When the connection was last dropped for a READONLY reply, in {@link #nanoTime}'s terms. */
  private final AtomicLong lastReadOnlyDrop;

  /** Starts a refresh of the Cluster client's topology in the background; null when not Cluster. */
  private final Runnable topologyRefresh;

  /** The calls written and not yet answered. */
  private final Set<CompletableFuture<List<Object>>> waiting = ConcurrentHashMap.newKeySet();

  /**
   * To be registered with the Lettuce client ({@code addListener}): fails every call waiting for a
   * reply when the connection (on Cluster, any connection of the client) drops. A connection closed
   * on purpose (by its owner, or by Lettuce after a topology refresh) is skipped: Lettuce routes
   * what it held again, and a command whose call has ended writes {@code PING} ({@link Once}).
   */
  final RedisConnectionStateListener lostConnections =
      new RedisConnectionStateListener() {
        @Override
        public void onRedisDisconnected(RedisChannelHandler<?, ?> handler) {
          if (!handler.isClosed() && (handler == connection || isCluster())) {
            failWaiting();
          }
        }
      };

  /**
   * Scripts sent on {@code connection}; {@code topologyRefresh} starts a refresh of a Cluster
   * client's topology, null when not Cluster.
   */
  LettuceScriptClient(StatefulConnection<String, String> connection, Runnable topologyRefresh) {
    this(connection, topologyRefresh, null, System::nanoTime);
  }

  /**
   * Scripts sent on {@code connection} of a Sentinel-managed master, which a {@code READONLY} reply
   * drops so that Lettuce reconnects through Sentinel.
   */
  static LettuceScriptClient followingMaster(StatefulConnection<String, String> connection) {
    return new LettuceScriptClient(
        connection, null, () -> dropChannel(connection), System::nanoTime);
  }

  /**
   * As above, with how the channel is dropped on a {@code READONLY} reply (null: never) and the
   * clock of those drops given.
   */
  LettuceScriptClient(
      StatefulConnection<String, String> connection,
      Runnable topologyRefresh,
      Runnable dropChannel,
      LongSupplier nanoTime) {
    this.connection = connection;
    this.topologyRefresh = topologyRefresh;
    this.dropChannel = dropChannel;
    this.nanoTime = nanoTime;
    this.lastReadOnlyDrop = new AtomicLong(nanoTime.getAsLong() - READONLY_DROP_INTERVAL_NANOS);
  }

  @Override
  public CompletableFuture<List<Object>> evalsha(String sha1, String[] keys, String[] args) {
    return send(CommandType.EVALSHA, sha1, keys, args);
  }

  @Override
  public CompletableFuture<List<Object>> eval(String script, String[] keys, String[] args) {
    return send(CommandType.EVAL, script, keys, args);
  }

  /**
   * Dispatches {@code EVAL} or {@code EVALSHA} as Lettuce's scripting commands do (a reply of Longs
   * and Strings), as a {@link Once}, and tracks it until it completes.
   */
  private CompletableFuture<List<Object>> send(
      CommandType type, String script, String[] keys, String[] args) {
    CommandArgs<String, String> commandArgs =
        new CommandArgs<>(StringCodec.UTF8)
            .add(script)
            .add(keys.length)
            .addKeys(keys)
            .addValues(args);
    Once command = new Once(type, commandArgs);
    AsyncCommand<String, String, List<Object>> call = new AsyncCommand<>(command);
    command.call = call;
    waiting.add(call);
    var unused =
        call.whenComplete(
            (reply, error) -> {
              waiting.remove(call);
              if (error != null) {
                readOnlyCheck(error);
              }
            });
    CompletableFuture<?> connecting = masterConnecting(keys);
    if (connecting == null) {
      dispatch(call);
    } else {
      var unusedToo =
          connecting.whenComplete(
              (node, error) -> {
                if (error != null) { // not written: the node cannot be reached
                  call.completeExceptionally(
                      error instanceof CompletionException && error.getCause() != null
                          ? error.getCause()
                          : error);
                } else if (!call.isDone()) { // not timed out or cancelled meanwhile
                  dispatch(call);
                }
              });
    }
    return call;
  }

  private void dispatch(AsyncCommand<String, String, List<Object>> call) {
    try {
      connection.dispatch(call);
    } catch (RuntimeException e) { // refused before it was written (closed, or not connected)
      call.completeExceptionally(e);
    }
  }

  /**
   * On Cluster, the connect still under way to the master that the client's view names for the slot
   * of {@code keys} (all of one slot), which starts it if none is open; null when there is none to
   * wait for (the connection is open, the slot has no master in the view, or not Cluster).
   *
   * <p>Lettuce opens a node's connection on the first command routed to it, and Lettuce 7 (7.7)
   * rejects that command at once under {@code REJECT_COMMANDS} while the connect is under way
   * (Lettuce 6 waited for it): the first calls for a master that appeared after the backend was
   * built (a replica promoted by a failover, a master added by a resharding) would fail. The call
   * waits for that connect instead, within its own timeout, off the caller's thread: it is
   * dispatched from the connect's completion, which Lettuce runs on an event loop, where dispatch
   * does not block. Lettuce routes it again itself, so a view that changed meanwhile costs at most
   * that rejection.
   */
  private CompletableFuture<?> masterConnecting(String[] keys) {
    if (keys.length == 0
        || !(connection instanceof StatefulRedisClusterConnection<String, String> cluster)) {
      return null;
    }
    CompletableFuture<?> connect;
    try {
      Partitions view = cluster.getPartitions();
      RedisClusterNode master =
          view == null ? null : view.getMasterBySlot(SlotHash.getSlot(keys[0]));
      if (master == null) {
        return null; // Lettuce reports the slot as not covered
      }
      RedisURI uri = master.getUri();
      // The connection Lettuce routes the slot's writes to: keyed by host and port.
      connect = cluster.getConnectionAsync(uri.getHost(), uri.getPort());
    } catch (RuntimeException e) {
      return null; // the view changed under us (or is closed): Lettuce routes the call as it can
    }
    return connect.isDone() ? null : connect;
  }

  /**
   * A script command that runs at most once. Lettuce encodes a command each time it writes it; once
   * the caller's call has ended (answered, failed because its connection dropped, timed out or
   * cancelled), a write is a replay after a reconnect and writes {@code PING} instead, which
   * changes nothing: the reply goes to a call already complete. This covers Cluster, where Lettuce
   * wraps the command in one of its own whose completion it tracks apart from the call's, and
   * writes it again after a reconnect even when the call has ended.
   */
  static final class Once extends Command<String, String, List<Object>> {

    /** The call this command answers; set before it is dispatched. */
    volatile AsyncCommand<String, String, List<Object>> call;

    Once(CommandType type, CommandArgs<String, String> args) {
      super(type, new NestedMultiOutput<>(StringCodec.UTF8), args);
    }

    @Override
    public void encode(ByteBuf buf) {
      AsyncCommand<String, String, List<Object>> c = call;
      if (c != null && c.isDone()) {
        buf.writeBytes(PING);
        return;
      }
      super.encode(buf);
    }
  }

  /**
   * Drops the connection's channel if this client follows a Sentinel-managed master, {@code
   * failure} is a {@code READONLY} reply, and the last such drop is at least {@link
   * #READONLY_DROP_INTERVAL_NANOS} ago.
   */
  void readOnlyCheck(Throwable failure) {
    if (dropChannel == null || isCluster()) {
      return;
    }
    String reply = errorReply(failure);
    if (reply == null || !reply.startsWith("READONLY")) {
      return;
    }
    long now = nanoTime.getAsLong();
    long last = lastReadOnlyDrop.get();
    if (now - last >= READONLY_DROP_INTERVAL_NANOS && lastReadOnlyDrop.compareAndSet(last, now)) {
      dropChannel.run();
    }
  }

  /**
   * Closes the channel of {@code connection} through its endpoint (Lettuce's {@link
   * DefaultEndpoint}, under the writers that wrap it for command timeouts and listeners); the
   * connection stays open and its watchdog reconnects. Does nothing for a writer of another kind.
   */
  private static void dropChannel(StatefulConnection<String, String> connection) {
    if (!(connection instanceof RedisChannelHandler<?, ?> handler)) {
      return;
    }
    RedisChannelWriter writer = handler.getChannelWriter();
    while (true) {
      if (writer instanceof CommandExpiryWriter expiry) {
        writer = expiry.getDelegate();
      } else if (writer instanceof CommandListenerWriter listeners) {
        writer = listeners.getDelegate();
      } else {
        break;
      }
    }
    if (writer instanceof DefaultEndpoint endpoint) {
      endpoint.disconnect();
    }
  }

  /** Fails every call waiting for its reply: their connection dropped, and they may have run. */
  void failWaiting() {
    if (waiting.isEmpty()) {
      return;
    }
    // A copy: failing a call runs its callers' callbacks here, and a call they dispatch meanwhile
    // has not met the drop.
    for (CompletableFuture<List<Object>> call : List.copyOf(waiting)) {
      call.completeExceptionally( // one each: a caller may add to it as its own
          new RedisConnectionException(
              "the connection dropped before Redis answered; the call may have run, so it is not"
                  + " sent again"));
    }
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

  /** On Sentinel: a {@code READONLY} reply drops the connection, which reconnects to the master. */
  @Override
  public boolean findsMasterAgain() {
    return dropChannel != null && !isCluster();
  }

  /** For diagnostics: on Cluster, the client's view of the slots and nodes. */
  @Override
  public String toString() {
    return connection instanceof StatefulRedisClusterConnection<String, String> cluster
        ? "Lettuce cluster connection, partitions " + cluster.getPartitions()
        : "Lettuce connection " + connection;
  }
}
