package io.slidingwindow.redis.jedis;

import io.slidingwindow.redis.RedisBackend;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.providers.ClusterConnectionProvider;
import redis.clients.jedis.util.JedisURIHelper;

/**
 * {@link RedisBackend}s that talk to Redis through Jedis. Limiters and counters built on them
 * ({@code RedisRateLimiter.builder(backend)}, {@code RedisCounters.builder(backend)}) run the same
 * scripts on the same keys, with the same retry rules, as on any other client: a Jedis instance and
 * a Lettuce instance with the same limits and key prefix share one window per id.
 *
 * <p>Jedis blocks: a call waits on the caller's thread until Redis answers or the client's socket
 * timeout passes, also on the limiters' asynchronous methods (their stages are complete when
 * returned). So the socket timeout, not the limiter's command timeout, bounds how long a call can
 * wait; give both the same value. A call that times out is never sent again, and the limiter's
 * failure policy answers. Requests that wait at the same moment still share script calls.
 *
 * <p>Standalone Redis, Sentinel and Cluster. On Cluster every request is a call of its own, and
 * commands follow MOVED and ASK but are never sent again after a connection failure.
 *
 * <p>Versions: the factories that make a client of their own need Jedis 7.2 or later (its {@code
 * RedisClient} classes; this module is built on 8.0); the backends over the caller's client or
 * connections ({@link #of(UnifiedJedis)}, {@link #of(Supplier, String)}) also run on older Jedis,
 * as Spring Boot's managed versions are (tested on 7.0).
 */
public final class JedisBackends {

  /** Jedis's cluster clients, by name: a Jedis of the caller's may lack either. */
  private static final List<String> CLUSTER_CLIENTS =
      List.of("redis.clients.jedis.RedisClusterClient", "redis.clients.jedis.JedisCluster");

  private JedisBackends() {}

  /**
   * Connects to the standalone Redis at {@code uri} (for example {@code "redis://127.0.0.1:6379"},
   * with user, password and database taken from it) through a pooled Jedis {@code RedisClient}
   * whose connect and socket timeouts are {@code timeout}. {@link RedisBackend#close()} closes the
   * client.
   *
   * @throws IllegalArgumentException if {@code uri} is null or not a Redis URI, or {@code timeout}
   *     is null, not positive or longer than one hour
   */
  public static RedisBackend standalone(String uri, Duration timeout) {
    URI parsed = parse(uri, "uri");
    int millis = timeoutMillis(timeout);
    UnifiedJedis client =
        JedisClients.standalone(JedisURIHelper.getHostAndPort(parsed), config(parsed, millis));
    return RedisBackend.of(JedisScriptClient.standalone(client), client, "jedis standalone " + uri);
  }

  /**
   * Connects to the master named {@code masterName} through the given Sentinels, each a URI such as
   * {@code "redis://127.0.0.1:26379"}, with a pooled Jedis {@code RedisSentinelClient} whose
   * connect and socket timeouts are {@code timeout}; after a failover it follows the new master. A
   * {@code READONLY} reply (a master demoted by hand, which Sentinel has not failed over) builds
   * the client again, which asks Sentinel for the master, at most once a second ({@link
   * RenewingClient}). User, password and database of the master are taken from the first URI.
   * {@link RedisBackend#close()} closes the client.
   *
   * @throws IllegalArgumentException if the list is null or empty or holds an invalid URI, {@code
   *     masterName} is null or empty, or {@code timeout} is invalid as in {@link #standalone}
   */
  public static RedisBackend sentinel(
      List<String> sentinelUris, String masterName, Duration timeout) {
    Set<HostAndPort> sentinels = hostsAndPorts(sentinelUris, "sentinelUris");
    if (masterName == null || masterName.isEmpty()) {
      throw new IllegalArgumentException("masterName must not be empty, was " + masterName);
    }
    int millis = timeoutMillis(timeout);
    URI first = parse(sentinelUris.get(0), "sentinelUris");
    DefaultJedisClientConfig config = config(first, millis);
    DefaultJedisClientConfig sentinelConfig =
        DefaultJedisClientConfig.builder()
            .connectionTimeoutMillis(millis)
            .socketTimeoutMillis(millis)
            .build();
    RenewingClient client =
        new RenewingClient(
            () -> JedisClients.sentinel(masterName, sentinels, config, sentinelConfig),
            System::nanoTime);
    return RedisBackend.of(
        JedisScriptClient.followingMaster(client),
        client,
        "jedis sentinel " + masterName + " via " + sentinelUris);
  }

  /**
   * Connects to a Redis Cluster through any of its nodes, each a URI such as {@code
   * "redis://127.0.0.1:7000"} (user and password taken from the first), with a Jedis {@code
   * RedisClusterClient} whose connect and socket timeouts are {@code timeout}. Commands follow
   * MOVED and ASK but are never sent again after a connection failure or timeout (Jedis's own
   * cluster executor would, up to its {@code maxAttempts}); such a failure reads the slot map again
   * in the background, at most once a second. {@link RedisBackend#close()} closes the client.
   *
   * @throws IllegalArgumentException if the list is null or empty or holds an invalid URI, or
   *     {@code timeout} is invalid as in {@link #standalone}
   */
  public static RedisBackend cluster(List<String> seedUris, Duration timeout) {
    Set<HostAndPort> nodes = hostsAndPorts(seedUris, "seedUris");
    int millis = timeoutMillis(timeout);
    DefaultJedisClientConfig config = config(parse(seedUris.get(0), "seedUris"), millis);
    ClusterConnectionProvider provider = new ClusterConnectionProvider(nodes, config);
    UnifiedJedis client;
    try {
      client = JedisClients.cluster(nodes, config, provider);
    } catch (RuntimeException e) {
      provider.close();
      throw e;
    }
    return RedisBackend.of(
        JedisScriptClient.cluster(client, provider::renewSlotCache),
        client,
        "jedis cluster " + seedUris);
  }

  /**
   * Uses the caller's Jedis client as it is configured: a pooled {@code RedisClient}, a {@code
   * RedisSentinelClient}, or a cluster client ({@code RedisClusterClient} or {@code JedisCluster};
   * then every request is a call of its own). Mind that Jedis's cluster clients send a command
   * again after a connection failure or a timeout unless their {@code maxAttempts} is 1, and such a
   * call may have run twice (which takes permits twice, never grants more); {@link #cluster} avoids
   * that. {@link RedisBackend#close()} leaves the client open.
   *
   * @throws IllegalArgumentException if {@code jedis} is null
   */
  public static RedisBackend of(UnifiedJedis jedis) {
    if (jedis == null) {
      throw new IllegalArgumentException("jedis must not be null");
    }
    JedisScriptClient client =
        isCluster(jedis)
            ? JedisScriptClient.cluster(jedis, null)
            : JedisScriptClient.standalone(jedis);
    return RedisBackend.of(client, () -> {}, "jedis client " + jedis);
  }

  /**
   * Uses connections to a standalone Redis or a Sentinel-managed master that {@code connections}
   * hands out, one per call, each closed after its call: a pooled {@link Jedis} (from a {@code
   * JedisPool}, a {@code JedisSentinelPool}, or Spring Data Redis's {@code JedisConnectionFactory})
   * then goes back to its pool, or is dropped if a timeout broke it. The connections' socket
   * timeout bounds how long a call waits. {@link RedisBackend#close()} closes nothing: the pool is
   * the caller's. For example {@code JedisBackends.of(pool::getResource, "orders pool")}.
   *
   * @param description names the connections in logs and in the backend's {@code toString()}; a
   *     password in a URI there is masked
   * @throws IllegalArgumentException if an argument is null
   */
  public static RedisBackend of(Supplier<? extends Jedis> connections, String description) {
    if (connections == null || description == null) {
      throw new IllegalArgumentException(
          "connections and description must not be null, were " + connections + ", " + description);
    }
    return RedisBackend.of(JedisScriptClient.borrowing(connections), () -> {}, description);
  }

  /**
   * Whether {@code jedis} is one of Jedis's cluster clients: {@code RedisClusterClient} (Jedis 7.2
   * and later) or {@code JedisCluster} (Spring Data Redis's).
   */
  private static boolean isCluster(UnifiedJedis jedis) {
    for (String name : CLUSTER_CLIENTS) {
      try {
        if (Class.forName(name, false, UnifiedJedis.class.getClassLoader()).isInstance(jedis)) {
          return true;
        }
      } catch (ClassNotFoundException e) {
        // not in this Jedis
      }
    }
    return false;
  }

  private static int timeoutMillis(Duration timeout) {
    if (timeout == null
        || timeout.isNegative()
        || timeout.isZero()
        || timeout.compareTo(Duration.ofHours(1)) > 0) {
      throw new IllegalArgumentException(
          "timeout must be positive and at most one hour, was " + timeout);
    }
    return (int) Math.max(1, timeout.toMillis());
  }

  /** Connect and socket timeouts of {@code millis}; user, password, database, TLS of the URI. */
  private static DefaultJedisClientConfig config(URI uri, int millis) {
    DefaultJedisClientConfig.Builder config =
        DefaultJedisClientConfig.builder()
            .connectionTimeoutMillis(millis)
            .socketTimeoutMillis(millis)
            .user(JedisURIHelper.getUser(uri))
            .password(JedisURIHelper.getPassword(uri))
            .ssl(JedisURIHelper.isRedisSSLScheme(uri));
    if (JedisURIHelper.hasDbIndex(uri)) {
      config.database(JedisURIHelper.getDBIndex(uri));
    }
    return config.build();
  }

  /**
   * The host and port of each of {@code uris}, in their order.
   *
   * @throws IllegalArgumentException if {@code uris} is null or empty or holds an invalid URI
   */
  private static Set<HostAndPort> hostsAndPorts(List<String> uris, String name) {
    if (uris == null || uris.isEmpty()) {
      throw new IllegalArgumentException(name + " must not be empty, was " + uris);
    }
    Set<HostAndPort> hosts = new LinkedHashSet<>();
    for (String uri : uris) {
      hosts.add(JedisURIHelper.getHostAndPort(parse(uri, name)));
    }
    return hosts;
  }

  private static URI parse(String uri, String name) {
    if (uri == null) {
      throw new IllegalArgumentException(name + " must not hold null");
    }
    URI parsed;
    try {
      parsed = URI.create(uri);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(name + " must hold Redis URIs, was \"" + uri + '"', e);
    }
    boolean redisScheme =
        JedisURIHelper.isRedisScheme(parsed) || JedisURIHelper.isRedisSSLScheme(parsed);
    if (!redisScheme || !JedisURIHelper.isValid(parsed)) {
      throw new IllegalArgumentException(name + " must hold Redis URIs, was \"" + uri + '"');
    }
    return parsed;
  }
}
