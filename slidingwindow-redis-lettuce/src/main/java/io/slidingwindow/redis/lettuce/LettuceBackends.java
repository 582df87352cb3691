package io.slidingwindow.redis.lettuce;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.redis.RedisUris;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * {@link RedisBackend}s that talk to Redis (standalone, Sentinel or Cluster) through Lettuce:
 * limiters and counters built on them ({@code RedisRateLimiter.builder(backend)}, {@code
 * RedisCounters.builder(backend)}) call the scripts asynchronously, on one multiplexed connection.
 *
 * <p>Backends made by {@link #standalone}, {@link #sentinel} and {@link #cluster} own their Lettuce
 * client: commands are refused at once while disconnected (instead of queued until a reconnect),
 * reconnects are tried every 10 ms to 1 s, Cluster topology is refreshed every 10 s and on every
 * adaptive trigger (MOVED, ASK, persistent reconnects), and {@link RedisBackend#close()} shuts the
 * client down. Backends made by {@link #of(RedisClient)} or {@link #of(RedisClusterClient)} use the
 * caller's client as configured and close only their connection.
 *
 * <p>Every backend here, on the caller's client too, listens to its client's connections: when one
 * drops, the calls still waiting for a reply fail at once rather than being written again after the
 * reconnect (which Lettuce would do, and a call that ran before the drop would then run twice).
 *
 * <p>On Cluster, calls that fail without an answer also start a topology refresh in the background,
 * at most one a second (the rule is the backend's, see {@link RedisBackend}): after a master fails
 * over, calls for its slots reach the promoted replica soon after the nodes agree on it (within
 * about a second in the failover test), even if Lettuce's own triggers do not fire, and even over a
 * caller's client with no refresh of its own. A call for a master whose connection is still being
 * opened (a promoted replica, a master added since) waits for that connect within its timeout,
 * where Lettuce 7 would reject it; building a Cluster backend opens the connections to every master
 * in parallel and waits for them at most {@link #MASTERS_BOUND} in all.
 */
public final class LettuceBackends {

  /**
   * Lettuce's own command timeout for the clients built here: only a backstop, as long as the
   * longest timeout a limiter or counters accept, so that it never cuts a call short of the
   * caller's own timeout. While Redis stalls, each limiter's circuit breaker keeps the calls left
   * waiting for it to a few.
   */
  private static final Duration COMMAND_BACKSTOP = RedisBackend.MAX_COMMAND_TIMEOUT;

  /** How long the clients built here wait to connect. */
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

  /**
   * How long building a Cluster backend waits, in all, for its connections to the masters, opened
   * in parallel: one node's connect timeout.
   */
  static final Duration MASTERS_BOUND = CONNECT_TIMEOUT;

  private LettuceBackends() {}

  /**
   * Connects to a standalone Redis, for example {@code "redis://127.0.0.1:6379"}.
   *
   * @throws IllegalArgumentException if {@code uri} is null or not a Redis URI
   * @throws io.lettuce.core.RedisConnectionException if Redis cannot be reached, saying why when
   *     Redis replied (wrong credentials, say), with the password masked
   */
  public static RedisBackend standalone(String uri) {
    RedisURI redisUri = LettuceUris.parse(uri, "uri");
    ClientResources resources = resources();
    RedisClient client = RedisClient.create(resources, redisUri);
    client.setOptions(clientOptions());
    return connectOwned(client, resources, "standalone " + uri, client::connect, null, false);
  }

  /**
   * Connects to the master named {@code masterName} through the given Sentinels, each a URI such as
   * {@code "redis://127.0.0.1:26379"}, with no credentials for the master; a Sentinel URI's own
   * credentials ({@code redis://:secret@host:26379}) are sent to that Sentinel. After a failover
   * the connection follows the new master.
   *
   * @throws IllegalArgumentException if a URI is invalid, the list is empty, or {@code masterName}
   *     is null or empty
   * @throws io.lettuce.core.RedisConnectionException as {@link #standalone}
   */
  public static RedisBackend sentinel(List<String> sentinelUris, String masterName) {
    return sentinel(sentinelUris, masterName, null, null, null);
  }

  /**
   * As {@link #sentinel(List, String)}, authenticating to the master and its replicas (the data
   * nodes) as {@code username} with {@code password}, and to every Sentinel whose URI carries no
   * credentials of its own with {@code sentinelPassword} (Redis's {@code requirepass} of the
   * Sentinels, which may differ from the data nodes'). The passwords are never part of a message or
   * of the backend's {@code toString()}.
   *
   * @param username the data nodes' ACL user, or null for the {@code default} user
   * @param password the data nodes' password, or null for none; needed with {@code username}
   * @param sentinelPassword the Sentinels' password, or null for none
   * @throws IllegalArgumentException as {@link #sentinel(List, String)}, and if {@code username} is
   *     given without a password
   * @throws io.lettuce.core.RedisConnectionException as {@link #standalone}
   */
  public static RedisBackend sentinel(
      List<String> sentinelUris,
      String masterName,
      String username,
      char[] password,
      char[] sentinelPassword) {
    RedisURI target =
        LettuceUris.sentinelTarget(sentinelUris, masterName, username, password, sentinelPassword);
    ClientResources resources = resources();
    RedisClient client = RedisClient.create(resources, target);
    client.setOptions(clientOptions());
    return connectOwned(
        client,
        resources,
        "sentinel "
            + masterName
            + " via "
            + RedisUris.mask(sentinelUris.toString())
            + (username != null ? " as " + username : ""),
        client::connect,
        null,
        true);
  }

  /**
   * Connects to a Redis Cluster through any of its nodes, with topology refresh on.
   *
   * @throws IllegalArgumentException if a URI is invalid or the list is empty
   * @throws io.lettuce.core.RedisConnectionException as {@link #standalone}
   */
  public static RedisBackend cluster(List<String> seedUris) {
    if (seedUris == null || seedUris.isEmpty()) {
      throw new IllegalArgumentException("seedUris must not be empty, was " + seedUris);
    }
    List<RedisURI> uris = new ArrayList<>();
    for (String uri : seedUris) {
      uris.add(LettuceUris.parse(uri, "seedUris"));
    }
    ClientResources resources = resources();
    RedisClusterClient client = RedisClusterClient.create(resources, uris);
    client.setOptions(
        ClusterClientOptions.builder(clientOptions())
            .topologyRefreshOptions(
                ClusterTopologyRefreshOptions.builder()
                    .enablePeriodicRefresh(Duration.ofSeconds(10))
                    .enableAllAdaptiveRefreshTriggers()
                    .adaptiveRefreshTriggersTimeout(Duration.ofMillis(500))
                    .refreshTriggersReconnectAttempts(2)
                    .build())
            .build());
    return connectOwned(
        client,
        resources,
        "cluster " + seedUris,
        () -> connectMasters(client.connect()),
        // Off the caller's thread: starting a refresh resolves every node's address.
        () -> resources.eventExecutorGroup().execute(client::refreshPartitionsAsync),
        false);
  }

  /**
   * Uses a connection of the caller's standalone or Sentinel {@code client}; {@link
   * RedisBackend#close()} closes that connection only. The connect is tried again when Lettuce lost
   * the reply that failed its handshake, as the other factories do.
   *
   * @throws IllegalArgumentException if {@code client} is null
   * @throws io.lettuce.core.RedisConnectionException if the connection fails
   */
  public static RedisBackend of(RedisClient client) {
    if (client == null) {
      throw new IllegalArgumentException("client must not be null");
    }
    StatefulRedisConnection<String, String> connection = LettuceConnects.connect(client::connect);
    return backend(client, connection, connection::close, "client " + client, null, false);
  }

  /**
   * Uses a connection of the caller's Cluster {@code client}; {@link RedisBackend#close()} closes
   * that connection only. The connect is tried again when Lettuce lost the reply that failed its
   * handshake, as the other factories do.
   *
   * @throws IllegalArgumentException if {@code client} is null
   * @throws io.lettuce.core.RedisConnectionException if the connection fails
   */
  public static RedisBackend of(RedisClusterClient client) {
    if (client == null) {
      throw new IllegalArgumentException("client must not be null");
    }
    StatefulRedisClusterConnection<String, String> connection =
        LettuceConnects.connect(() -> connectMasters(client.connect()));
    return backend(
        client,
        connection,
        connection::close,
        "cluster client " + client,
        () -> client.getResources().eventExecutorGroup().execute(client::refreshPartitionsAsync),
        false);
  }

  /**
   * The backend over {@code connection} of {@code client}, whose drops fail the calls waiting on it
   * (see {@link LettuceScriptClient}): {@link RedisBackend#close()} closes {@code resources} and
   * then stops listening to {@code client}. {@code followMaster} (Sentinel) drops the connection on
   * a {@code READONLY} reply, so that Lettuce reconnects to the master Sentinel names.
   */
  private static RedisBackend backend(
      AbstractRedisClient client,
      StatefulConnection<String, String> connection,
      AutoCloseable resources,
      String description,
      Runnable topologyRefresh,
      boolean followMaster) {
    LettuceScriptClient scripts =
        followMaster
            ? LettuceScriptClient.followingMaster(connection)
            : new LettuceScriptClient(connection, topologyRefresh);
    client.addListener(scripts.lostConnections);
    AutoCloseable closeAll =
        () -> {
          try {
            resources.close();
          } finally {
            client.removeListener(scripts.lostConnections);
          }
        };
    return RedisBackend.of(scripts, closeAll, description);
  }

  /**
   * Builds a backend that owns {@code client} and its {@code resources}, shut down by {@link
   * RedisBackend#close()} (after the connection) or at once if {@code connect} fails (tried again
   * where Lettuce lost Redis's reply), which then throws the failure, explained where Redis said
   * why (see {@link LettuceConnects}).
   *
   * @param topologyRefresh starts a refresh of a Cluster client's topology; null otherwise
   */
  private static <C extends StatefulConnection<String, String>> RedisBackend connectOwned(
      AbstractRedisClient client,
      ClientResources resources,
      String description,
      Supplier<C> connect,
      Runnable topologyRefresh,
      boolean followMaster) {
    Runnable shutdown =
        () -> {
          client.shutdown();
          var unused = resources.shutdown(); // completes in the background
        };
    C connection;
    try {
      connection = LettuceConnects.connect(connect);
    } catch (RuntimeException e) {
      shutdown.run();
      throw LettuceConnects.explained(e, description);
    }
    AutoCloseable closeAll =
        () -> {
          try {
            connection.close();
          } finally {
            shutdown.run();
          }
        };
    return backend(client, connection, closeAll, description, topologyRefresh, followMaster);
  }

  /**
   * Opens {@code connection}'s connections to the masters (the nodes that hold slots), all at once,
   * and waits for them at most {@link #MASTERS_BOUND} in all; returns {@code connection}. Lettuce
   * opens a node's connection on the first command for its slots, and Lettuce 7 (7.7) rejects that
   * command at once under {@link ClientOptions.DisconnectedBehavior#REJECT_COMMANDS}, the mode of
   * the clients built here (Lettuce 6 waited for the connection). The backend's calls wait for a
   * connect still under way (see {@link LettuceScriptClient}), so this only spares the first calls
   * that wait; a master not reachable now, or slower than the bound, is left to them.
   */
  private static StatefulRedisClusterConnection<String, String> connectMasters(
      StatefulRedisClusterConnection<String, String> connection) {
    List<CompletableFuture<?>> connects = new ArrayList<>();
    for (RedisClusterNode node : connection.getPartitions()) {
      if (!node.getSlots().isEmpty()) {
        RedisURI uri = node.getUri();
        try {
          // Keyed by host and port, as Lettuce keys the connection it routes a slot's commands to.
          connects.add(connection.getConnectionAsync(uri.getHost(), uri.getPort()));
        } catch (RuntimeException e) {
          // Not a node of the current view after all: its calls are routed as Lettuce sees fit.
        }
      }
    }
    awaitAll(connects, MASTERS_BOUND);
    return connection;
  }

  /**
   * Waits until every one of {@code futures} is complete, normally or not, or {@code bound} has
   * passed, whichever is first; an interrupt ends the wait too (the thread stays interrupted).
   */
  static void awaitAll(List<? extends CompletableFuture<?>> futures, Duration bound) {
    try {
      CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new))
          .get(bound.toNanos(), TimeUnit.NANOSECONDS);
    } catch (ExecutionException | TimeoutException e) {
      // A connect failed or is still under way: the first calls for that master wait for it.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static ClientResources resources() {
    return ClientResources.builder()
        .reconnectDelay(
            Delay.exponential(
                Duration.ofMillis(10), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS))
        .build();
  }

  private static ClientOptions clientOptions() {
    return ClientOptions.builder()
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .timeoutOptions(TimeoutOptions.enabled(COMMAND_BACKSTOP))
        .socketOptions(SocketOptions.builder().connectTimeout(CONNECT_TIMEOUT).build())
        .build();
  }
}
