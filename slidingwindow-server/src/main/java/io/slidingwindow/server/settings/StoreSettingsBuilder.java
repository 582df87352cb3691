package io.slidingwindow.server.settings;

import io.slidingwindow.server.settings.Settings.RedisMode;
import java.time.Duration;
import java.util.List;

/**
 * The part of {@link SettingsBuilder} that says where counts live: a Redis store, its credentials,
 * its timeout and circuit breaker. Not thread-safe.
 *
 * @param <B> the concrete builder, returned by every setter
 */
public abstract class StoreSettingsBuilder<B extends StoreSettingsBuilder<B>> {

  private static final Duration MAX_REDIS_TIMEOUT = Duration.ofHours(1);

  RedisMode redisMode;
  List<String> redisUris;
  String redisMaster;
  String redisUsername;
  Secret redisPassword;
  Secret redisSentinelPassword;
  Duration redisTimeout;
  boolean redisTimeoutSet;
  int breakerFailures;
  Duration breakerOpenFor;
  boolean breakerSet;

  StoreSettingsBuilder() {}

  @SuppressWarnings("unchecked")
  final B self() {
    return (B) this;
  }

  /**
   * Keeps the counts in a standalone Redis, for example {@code redis://127.0.0.1:6379} ({@code
   * rediss://} for TLS), shared by every instance of the service that uses it; in memory by
   * default. While Redis fails, each domain's {@code failure_policy} answers. One Redis store at
   * most: this, {@link #redisSentinel} or {@link #redisCluster}.
   *
   * @throws IllegalArgumentException if {@code uri} is empty
   * @throws IllegalStateException if a Redis store was already set
   */
  public B redis(String uri) {
    if (uri == null || uri.isBlank()) {
      throw new IllegalArgumentException("redis uri must not be empty, was " + uri);
    }
    return store(RedisMode.STANDALONE, List.of(uri.trim()), null);
  }

  /**
   * As {@link #redis}, on the master named {@code masterName} found through the given Sentinels
   * (each a URI such as {@code redis://127.0.0.1:26379}, whose own credentials go to that
   * Sentinel); after a failover the counts continue on the new master.
   *
   * @throws IllegalArgumentException if the list is empty or holds an empty URI, or {@code
   *     masterName} is empty
   * @throws IllegalStateException if a Redis store was already set
   */
  public B redisSentinel(List<String> sentinelUris, String masterName) {
    List<String> uris = uris(sentinelUris, "sentinelUris");
    if (masterName == null || masterName.isBlank()) {
      throw new IllegalArgumentException("masterName must not be empty, was " + masterName);
    }
    store(RedisMode.SENTINEL, uris, masterName.trim());
    return redisMaster(masterName);
  }

  /** The Sentinels of {@link #redisSentinel(List, String)}; the master's name comes apart. */
  B redisSentinelUris(List<String> sentinelUris) {
    return store(RedisMode.SENTINEL, uris(sentinelUris, "sentinelUris"), redisMaster);
  }

  /** The master's name of {@link #redisSentinel(List, String)}, given apart from the Sentinels. */
  B redisMaster(String masterName) {
    if (masterName == null || masterName.isBlank()) {
      throw new IllegalArgumentException("masterName must not be empty, was " + masterName);
    }
    this.redisMaster = masterName.trim();
    return self();
  }

  /**
   * As {@link #redisSentinel(List, String)}, with the data nodes' credentials ({@link
   * #redisCredentials}) and the Sentinels' password ({@link #redisSentinelPassword}).
   *
   * @throws IllegalArgumentException as those three
   * @throws IllegalStateException if a Redis store was already set
   */
  public B redisSentinel(
      List<String> sentinelUris,
      String masterName,
      String username,
      char[] password,
      char[] sentinelPassword) {
    redisSentinel(sentinelUris, masterName);
    if (username != null || password != null) {
      redisCredentials(username, password);
    }
    return redisSentinelPassword(sentinelPassword);
  }

  /**
   * As {@link #redis}, on a Redis Cluster reached through any of {@code seedUris}; each count lives
   * on the node that serves its key's slot.
   *
   * @throws IllegalArgumentException if the list is empty or holds an empty URI
   * @throws IllegalStateException if a Redis store was already set
   */
  public B redisCluster(List<String> seedUris) {
    return store(RedisMode.CLUSTER, uris(seedUris, "seedUris"), null);
  }

  /**
   * The credentials of the Redis data nodes (the server, the Sentinels' master and its replicas, or
   * the Cluster's nodes), for any store: {@code username} (an ACL user; null for Redis's {@code
   * default}) with {@code password} (copied). A URI that carries credentials of its own keeps them.
   *
   * @throws IllegalArgumentException if {@code password} is empty, or {@code username} is given
   *     without a password or is empty
   */
  public B redisCredentials(String username, char[] password) {
    if (username != null && (username.isBlank() || password == null)) {
      throw new IllegalArgumentException(
          "redis username '" + username + "' must be non-empty and come with a password");
    }
    this.redisUsername = username;
    this.redisPassword = Secret.of(password, "redis password");
    return self();
  }

  /** The ACL user of the Redis data nodes, without changing the password. */
  B redisUsername(String username) {
    if (username != null && username.isBlank()) {
      throw new IllegalArgumentException("redis username must not be empty");
    }
    this.redisUsername = username;
    return self();
  }

  /** The Redis data nodes' password, without changing the user. */
  B redisPassword(char[] password) {
    this.redisPassword = Secret.of(password, "redis password");
    return self();
  }

  /**
   * The Sentinels' own password ({@code requirepass} in {@code sentinel.conf}), for the Sentinels
   * whose URI carries none. Copied; null for none.
   */
  public B redisSentinelPassword(char[] password) {
    this.redisSentinelPassword = Secret.of(password, "redis sentinel password");
    return self();
  }

  /**
   * How long a decision waits for Redis before the domain's {@code failure_policy} answers instead,
   * 50 ms by default. A call that timed out is not retried: it may have counted.
   *
   * @throws IllegalArgumentException if {@code timeout} is null, not positive or over an hour
   */
  public B redisCommandTimeout(Duration timeout) {
    if (timeout == null
        || timeout.isNegative()
        || timeout.isZero()
        || timeout.compareTo(MAX_REDIS_TIMEOUT) > 0) {
      throw new IllegalArgumentException(
          "redisCommandTimeout must be positive and at most an hour, was " + timeout);
    }
    this.redisTimeout = timeout;
    this.redisTimeoutSet = true;
    return self();
  }

  /**
   * Opens each rule's circuit breaker after {@code consecutiveFailures} failed Redis calls in a
   * row: for {@code openFor} the domain's {@code failure_policy} answers at once, without waiting
   * for Redis; then one call tries Redis again. By default 3 failures open it for 1 s.
   *
   * @throws IllegalArgumentException if {@code consecutiveFailures} is not positive or {@code
   *     openFor} is null or not positive
   */
  public B redisCircuitBreaker(int consecutiveFailures, Duration openFor) {
    if (consecutiveFailures <= 0) {
      throw new IllegalArgumentException(
          "consecutiveFailures must be positive, was " + consecutiveFailures);
    }
    this.breakerFailures = consecutiveFailures;
    this.breakerOpenFor = positive(openFor, "openFor");
    this.breakerSet = true;
    return self();
  }

  /**
   * Where counts live, checked as a whole.
   *
   * @throws IllegalStateException if a Redis timeout, breaker or credentials were set without a
   *     Redis store, or a Sentinel's master without its Sentinels
   */
  final Settings.Store storeSettings() {
    Settings.Redis redis = null;
    if (redisMode == null) {
      if (redisMaster != null || redisSentinelPassword != null) {
        throw new IllegalStateException(
            "a Sentinel master name or password needs redisSentinel (--redis-sentinel)");
      }
      if (redisTimeoutSet || breakerSet || redisUsername != null || redisPassword != null) {
        throw new IllegalStateException(
            "redisCommandTimeout, redisCircuitBreaker and Redis credentials need a Redis store"
                + " (redis, redisSentinel or redisCluster)");
      }
    } else {
      if ((redisMode == RedisMode.SENTINEL) != (redisMaster != null)) {
        throw new IllegalStateException(
            "redisSentinel and its masterName come together (--redis-sentinel with"
                + " --redis-master)");
      }
      if (redisSentinelPassword != null && redisMode != RedisMode.SENTINEL) {
        throw new IllegalStateException("a Sentinel password needs redisSentinel");
      }
      redis =
          new Settings.Redis(
              redisMode,
              redisUris,
              redisMaster,
              redisUsername,
              redisPassword,
              redisSentinelPassword);
    }
    return new Settings.Store(redis, redisTimeout, breakerFailures, breakerOpenFor);
  }

  private B store(RedisMode mode, List<String> uris, String master) {
    if (redisMode != null) {
      throw new IllegalStateException(
          "one Redis store at most: "
              + describe(redisMode, redisUris, redisMaster)
              + (redisUsername != null ? " as " + redisUsername : "")
              + " was set, then "
              + describe(mode, uris, master));
    }
    this.redisMode = mode;
    this.redisUris = uris;
    return self();
  }

  /** The store as the messages name it, without any password a URI holds. */
  private static String describe(RedisMode mode, List<String> uris, String master) {
    String masked = masked(mode == RedisMode.STANDALONE ? uris.get(0) : uris.toString());
    return switch (mode) {
      case STANDALONE -> "standalone " + masked;
      case SENTINEL -> "sentinel " + master + " via " + masked;
      case CLUSTER -> "cluster " + masked;
    };
  }

  private static List<String> uris(List<String> uris, String name) {
    if (uris == null || uris.isEmpty() || uris.stream().anyMatch(u -> u == null || u.isBlank())) {
      throw new IllegalArgumentException(
          name + " must be non-empty URIs, was " + masked(String.valueOf(uris)));
    }
    return uris.stream().map(String::trim).toList();
  }

  /** {@code text} with the user info of every URI in it (where passwords are) replaced. */
  static String masked(String text) {
    return text.replaceAll("//[^/\\s,\\]]*@", "//***@");
  }

  static Duration positive(Duration duration, String name) {
    if (duration == null || duration.isNegative() || duration.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, was " + duration);
    }
    return duration;
  }
}
