package io.slidingwindow.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A connection to Redis (standalone, Sentinel or Cluster) that runs this library's scripts, over
 * Lettuce, or over another client library's {@link ScriptClient} ({@link #of(ScriptClient,
 * AutoCloseable, String)}).
 *
 * <p>Every script is called with EVALSHA; a server that does not know it yet answers NOSCRIPT and
 * the call is sent again with EVAL, which also loads it there. TRYAGAIN (a multi-key call during a
 * Cluster slot migration) is retried up to twice, a few milliseconds apart; Cluster redirects
 * (MOVED, ASK) are followed by Lettuce. Nothing else is retried: a call that may have run is never
 * sent twice. These rules are the same for every client library and every caller; this class only
 * sends the commands and tells Redis's error replies from calls without an answer.
 *
 * <p>Backends made by {@link #standalone}, {@link #sentinel} and {@link #cluster} own their Lettuce
 * client: commands are refused at once while disconnected (instead of queued until a reconnect),
 * reconnects are tried every 10 ms to 1 s, Cluster topology is refreshed every 10 s and on every
 * adaptive trigger (MOVED, ASK, persistent reconnects), and {@link #close()} shuts the client down.
 * Backends made by {@link #of(RedisClient)} or {@link #of(RedisClusterClient)} use the caller's
 * client as configured (apart from the topology refreshes below) and close only their connection.
 *
 * <p>On Cluster (from {@link #cluster} or {@link #of(RedisClusterClient)}), a call that fails
 * without an answer from Redis (no connection, refused while disconnected, timed out) also starts a
 * topology refresh in the background, at most one a second; the call itself is not retried and does
 * not wait for it. So while calls keep failing, the client reads the topology again at least once a
 * second: after a master fails over, calls for its slots reach the promoted replica again soon
 * after the nodes agree on it (within about a second in the failover test), even if Lettuce's own
 * triggers do not fire. Until then they fail, and the limiters' failure policy answers.
 *
 * <p>Thread-safe: one multiplexed connection serves every limiter and counter built on it.
 */
public final class RedisBackend implements AutoCloseable {

  /** The longest command timeout a limiter or counters accept. */
  static final Duration MAX_COMMAND_TIMEOUT = Duration.ofHours(1);

  /**
   * Lettuce's own command timeout for the clients built here: only a backstop, as long as the
   * longest timeout a limiter or counters accept, so that it never cuts a call short of the
   * caller's own timeout. While Redis stalls, each limiter's circuit breaker keeps the calls left
   * waiting for it to a few.
   */
  private static final Duration COMMAND_BACKSTOP = MAX_COMMAND_TIMEOUT;

  /** How long the clients built here wait to connect. */
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

  /** The Lettuce connection, closed by {@link #close()}; null for another client's adapter. */
  private final StatefulConnection<String, String> connection;

  private final ScriptClient scripts;
  private final ScriptCalls calls;
  private final AutoCloseable owned;
  private final String description;

  private RedisBackend(
      StatefulConnection<String, String> connection,
      RedisScriptingAsyncCommands<String, String> commands,
      AutoCloseable owned,
      String description) {
    this(connection, commands, owned, description, null);
  }

  /** {@code topologyRefresh}: starts a refresh of a Cluster client's topology; null otherwise. */
  private RedisBackend(
      StatefulConnection<String, String> connection,
      RedisScriptingAsyncCommands<String, String> commands,
      AutoCloseable owned,
      String description,
      Runnable topologyRefresh) {
    this(connection, new LettuceScriptClient(commands, topologyRefresh), owned, description);
  }

  private RedisBackend(
      StatefulConnection<String, String> connection,
      ScriptClient scripts,
      AutoCloseable owned,
      String description) {
    this.connection = connection;
    this.scripts = scripts;
    this.description = RedisUris.mask(description);
    this.calls = new ScriptCalls(scripts, new ProblemReport(this.description));
    this.owned = owned;
  }

  /**
   * Probes Redis with a script that writes to one key of the library's own, as the limiter's script
   * does, and says whether it ran: down with a {@link RedisProblem} when Redis refuses it for a
   * lasting reason (a replica, no scripting, credentials, ACL rights), down without one when Redis
   * did not answer within {@code timeout} or could not be reached. Blocks for at most about {@code
   * timeout}; meant for health checks and start-up, not for every request.
   *
   * @throws IllegalArgumentException if {@code timeout} is null or not positive
   */
  public RedisHealth health(Duration timeout) {
    if (timeout == null || timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive, was " + timeout);
    }
    try {
      calls.await(
          calls.run(Script.PROBE, new String[] {Keys.PROBE_KEY}, new String[0]), timeout.toNanos());
      return RedisHealth.healthy();
    } catch (TimeoutException e) {
      return RedisHealth.down(null, "no answer within " + timeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return RedisHealth.down(null, "interrupted while waiting for Redis");
    } catch (ExecutionException e) {
      Throwable cause = ScriptCalls.unwrap(e.getCause());
      String reply = scripts.errorReply(cause);
      if (reply == null) {
        return RedisHealth.down(null, "no answer: " + cause);
      }
      return RedisHealth.down(RedisProblem.of(reply), reply);
    } catch (RuntimeException e) {
      return RedisHealth.down(null, "cannot call Redis: " + e);
    }
  }

  /**
   * The lasting problem that the latest failed calls of this backend's limiters and counters met (a
   * replica, no scripting, credentials, ACL rights), or null if none, or if a call succeeded since.
   * Costs nothing: it reads what the calls reported. The first occurrence of each problem is also
   * logged at ERROR on the logger {@code io.slidingwindow.redis}.
   */
  public RedisProblem latestProblem() {
    return calls.problems().latest();
  }

  /**
   * A backend over another client library, through its adapter {@code client} (such as the one of
   * {@code slidingwindow-redis-jedis}): the limiters and counters built on it run the same scripts,
   * keys and retry rules as on Lettuce. {@link #close()} closes {@code resources}.
   *
   * @throws IllegalArgumentException if an argument is null
   */
  public static RedisBackend of(ScriptClient client, AutoCloseable resources, String description) {
    if (client == null || resources == null || description == null) {
      throw new IllegalArgumentException(
          "client, resources and description must not be null, were "
              + client
              + ", "
              + resources
              + ", "
              + description);
    }
    return new RedisBackend(null, client, resources, description);
  }

  /**
   * Connects to a standalone Redis, for example {@code "redis://127.0.0.1:6379"}.
   *
   * @throws IllegalArgumentException if {@code uri} is null or not a Redis URI
   * @throws io.lettuce.core.RedisConnectionException if Redis cannot be reached
   */
  public static RedisBackend standalone(String uri) {
    RedisURI redisUri = LettuceUris.parse(uri, "uri");
    ClientResources resources = resources();
    RedisClient client = RedisClient.create(resources, redisUri);
    client.setOptions(clientOptions());
    return connectOwned(
        client,
        resources,
        "standalone " + uri,
        client::connect,
        StatefulRedisConnection::async,
        null);
  }

  /**
   * Connects to the master named {@code masterName} through the given Sentinels, each a URI such as
   * {@code "redis://127.0.0.1:26379"}, with no credentials for the master; a Sentinel URI's own
   * credentials ({@code redis://:secret@host:26379}) are sent to that Sentinel. After a failover
   * the connection follows the new master.
   *
   * @throws IllegalArgumentException if a URI is invalid, the list is empty, or {@code masterName}
   *     is null or empty
   */
  public static RedisBackend sentinel(List<String> sentinelUris, String masterName) {
    return sentinel(sentinelUris, masterName, null, null, null);
  }

  /**
   * As {@link #sentinel(List, String)}, authenticating to the master and its replicas (the data
   * nodes) as {@code username} with {@code password}, and to every Sentinel whose URI carries no
   * credentials of its own with {@code sentinelPassword} (Redis's {@code requirepass} of the
   * Sentinels, which may differ from the data nodes'). The passwords are never part of a message or
   * of {@link #toString()}.
   *
   * @param username the data nodes' ACL user, or null for the {@code default} user
   * @param password the data nodes' password, or null for none; needed with {@code username}
   * @param sentinelPassword the Sentinels' password, or null for none
   * @throws IllegalArgumentException as {@link #sentinel(List, String)}, and if {@code username} is
   *     given without a password
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
        StatefulRedisConnection::async,
        null);
  }

  /**
   * Connects to a Redis Cluster through any of its nodes, with topology refresh on.
   *
   * @throws IllegalArgumentException if a URI is invalid or the list is empty
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
        client::connect,
        StatefulRedisClusterConnection::async,
        // Off the caller's thread: starting a refresh resolves every node's address.
        () -> resources.eventExecutorGroup().execute(client::refreshPartitionsAsync));
  }

  /**
   * Uses a connection of the caller's standalone or Sentinel {@code client}; {@link #close()}
   * closes that connection only.
   *
   * @throws IllegalArgumentException if {@code client} is null
   */
  public static RedisBackend of(RedisClient client) {
    if (client == null) {
      throw new IllegalArgumentException("client must not be null");
    }
    StatefulRedisConnection<String, String> connection = client.connect();
    return new RedisBackend(connection, connection.async(), () -> {}, "client " + client);
  }

  /**
   * Uses a connection of the caller's Cluster {@code client}; {@link #close()} closes that
   * connection only.
   *
   * @throws IllegalArgumentException if {@code client} is null
   */
  public static RedisBackend of(RedisClusterClient client) {
    if (client == null) {
      throw new IllegalArgumentException("client must not be null");
    }
    StatefulRedisClusterConnection<String, String> connection = client.connect();
    return new RedisBackend(
        connection,
        connection.async(),
        () -> {},
        "cluster client " + client,
        () -> client.getResources().eventExecutorGroup().execute(client::refreshPartitionsAsync));
  }

  /**
   * A standalone backend that sends its scripts through {@code commands} and owns nothing: for
   * tests that script Redis's answers.
   */
  static RedisBackend over(RedisScriptingAsyncCommands<String, String> commands) {
    return new RedisBackend(null, commands, () -> {}, "scripted commands");
  }

  /** Whether this is a Cluster connection, where one call may only hold keys of one slot. */
  boolean isCluster() {
    return scripts.isCluster();
  }

  /** The script calls on this connection, with the retry rules every caller shares. */
  ScriptCalls calls() {
    return calls;
  }

  /** Closes the connection, and the client and its threads if this backend made them. */
  @Override
  public void close() {
    RuntimeException failure = null;
    try {
      if (connection != null) {
        connection.close();
      }
    } catch (RuntimeException e) {
      failure = e;
    }
    try {
      owned.close();
    } catch (Exception e) {
      IllegalStateException closing = new IllegalStateException("closing " + description, e);
      if (failure != null) {
        closing.addSuppressed(failure);
      }
      throw closing;
    }
    if (failure != null) {
      throw failure;
    }
  }

  /**
   * The client's view of the Cluster's slots and nodes, for diagnostics; empty when not Cluster.
   */
  String topology() {
    return connection instanceof StatefulRedisClusterConnection
        ? String.valueOf(
            ((StatefulRedisClusterConnection<String, String>) connection).getPartitions())
        : "";
  }

  @Override
  public String toString() {
    return "RedisBackend[" + description + "]";
  }

  /**
   * Builds a backend that owns {@code client} and its {@code resources}, shut down by {@link
   * #close()} or at once if {@code connect} fails (tried again where Lettuce lost Redis's reply),
   * which then throws the failure, explained where Redis said why (see {@link LettuceConnects}).
   *
   * @param topologyRefresh starts a refresh of a Cluster client's topology; null otherwise
   */
  private static <C extends StatefulConnection<String, String>> RedisBackend connectOwned(
      AbstractRedisClient client,
      ClientResources resources,
      String description,
      Supplier<C> connect,
      Function<C, RedisScriptingAsyncCommands<String, String>> commands,
      Runnable topologyRefresh) {
    Runnable shutdown =
        () -> {
          client.shutdown();
          var unused = resources.shutdown(); // completes in the background
        };
    try {
      C connection = LettuceConnects.connect(connect);
      return new RedisBackend(
          connection, commands.apply(connection), shutdown::run, description, topologyRefresh);
    } catch (RuntimeException e) {
      shutdown.run();
      throw LettuceConnects.explained(e, description);
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
