package io.slidingwindow.server;

import com.sun.net.httpserver.HttpServer;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Ticker;
import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.redis.RedisRateLimiter;
import io.slidingwindow.server.internal.ConfigWatcher;
import io.slidingwindow.server.internal.DaemonThreads;
import io.slidingwindow.server.internal.Decider;
import io.slidingwindow.server.internal.EnvoyRateLimitService;
import io.slidingwindow.server.internal.HttpApi;
import io.slidingwindow.server.internal.LimiterFactory;
import io.slidingwindow.server.internal.RateLimitConfig;
import io.slidingwindow.server.internal.ServerMetrics;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A rate limit service that speaks Envoy's rate limit protocol ({@code
 * envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit} over gRPC) and HTTP JSON, with
 * sliding windows: for every rule, at most N permits in any interval of the window's length, where
 * envoyproxy/ratelimit counts fixed windows.
 *
 * <p>The configuration is envoyproxy/ratelimit's YAML (a file, or a directory of {@code .yaml}
 * files, one domain each) with extensions for windows of any length and several limits per
 * descriptor; see {@code docs/server.md}. It is reloaded when the files change; rules whose domain,
 * path and limits are unchanged keep their counts, and a bad file leaves the last good
 * configuration in force. Counts live in this process's memory, or in Redis ({@link
 * Builder#redis}).
 *
 * <p>{@link #close()} stops accepting calls and waits up to the drain timeout for calls in flight.
 * Thread-safe.
 */
public final class RateLimitServer implements AutoCloseable {

  private static final System.Logger LOG = System.getLogger(RateLimitServer.class.getName());

  private final Server grpc;
  private final HttpServer http;
  private final HttpApi httpApi;
  private final ExecutorService httpExecutor;
  private final ScheduledExecutorService reloader;
  private final ConfigWatcher watcher;
  private final Decider decider;
  private final Duration drainTimeout;
  private final RedisBackend redis;
  private final LimiterFactory limiters;
  private boolean closed;

  private RateLimitServer(Builder builder) throws IOException, ConfigException {
    ServerMetrics metrics = new ServerMetrics();
    watcher = new ConfigWatcher(builder.config, metrics);
    RateLimitConfig config = watcher.load();
    LimiterFactory local = LimiterFactory.local(builder.ticker, builder.maxKeysPerRule);
    if (builder.redisStore != null) {
      redis = builder.redisStore.connect();
      limiters =
          LimiterFactory.redis(
              redis,
              builder.tickerSet ? builder.ticker : null,
              new LimiterFactory.RedisCalls(
                  builder.redisCommandTimeout, builder.breakerFailures, builder.breakerOpenFor),
              local);
    } else {
      redis = null;
      limiters = local;
    }
    try {
      decider = new Decider(config, limiters);
    } catch (ConfigException | RuntimeException e) {
      closeRedis();
      throw e;
    }
    watcher.attach(decider);
    drainTimeout = builder.drainTimeout;

    grpc =
        NettyServerBuilder.forAddress(new InetSocketAddress(builder.host, builder.grpcPort))
            .addService(new EnvoyRateLimitService(decider, metrics))
            .maxInboundMessageSize(1 << 20)
            .build();
    // Else small answers wait for delayed ACKs (~40 ms); read once by the JDK; a set value wins.
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
    HttpServer httpServer;
    try {
      httpServer = HttpServer.create(new InetSocketAddress(builder.host, builder.httpPort), 64);
    } catch (IOException | RuntimeException e) {
      closeRedis(); // the port is taken or the host unknown: nothing else is open yet
      throw e;
    }
    httpExecutor =
        Executors.newFixedThreadPool(
            builder.httpThreads, DaemonThreads.named("slidingwindow-http"));
    httpServer.setExecutor(httpExecutor);
    httpApi = new HttpApi(decider, metrics, watcher);
    httpApi.register(httpServer);
    http = httpServer;
    try {
      grpc.start();
      http.start();
    } catch (IOException | RuntimeException e) {
      grpc.shutdownNow();
      http.stop(0);
      httpExecutor.shutdownNow();
      closeRedis();
      throw e;
    }
    if (builder.reloadInterval.isZero()) {
      reloader = null;
    } else {
      reloader =
          Executors.newSingleThreadScheduledExecutor(
              DaemonThreads.named("slidingwindow-config-reload"));
      long millis = builder.reloadInterval.toMillis();
      var unused =
          reloader.scheduleWithFixedDelay(
              watcher::checkQuietly, millis, millis, TimeUnit.MILLISECONDS);
    }
    LOG.log(
        Level.INFO,
        "Rate limit service on {0}: gRPC port {1,number,#}, HTTP port {2,number,#}; configuration"
            + " {3}, domains {4}; counts {5}",
        builder.host,
        grpcPort(),
        httpPort(),
        builder.config,
        config.domains(),
        limiters);
  }

  /** Returns a builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** The port gRPC listens on (the bound one when 0 was asked for). */
  public int grpcPort() {
    return grpc.getPort();
  }

  /** The port HTTP listens on (the bound one when 0 was asked for). */
  public int httpPort() {
    return http.getAddress().getPort();
  }

  /**
   * Reads the configuration files now and applies them if they changed and are valid.
   *
   * @return whether a new configuration was applied
   */
  public boolean reloadNow() {
    return watcher.check();
  }

  /** The error of the last failed reload while it is in force, or null. */
  public String lastReloadError() {
    return watcher.lastError();
  }

  /**
   * Stops accepting calls, waits up to the drain timeout for calls in flight, then stops.
   * Idempotent.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (reloader != null) {
      reloader.shutdownNow();
    }
    long deadline = System.nanoTime() + drainTimeout.toNanos();
    grpc.shutdown();
    // The JDK's HttpServer.stop(delay) may wait the whole delay, so the API drains itself first.
    httpApi.drain(drainTimeout.toNanos());
    http.stop(0);
    httpExecutor.shutdown();
    try {
      long left = deadline - System.nanoTime();
      if (!grpc.awaitTermination(Math.max(0, left), TimeUnit.NANOSECONDS)) {
        grpc.shutdownNow();
      }
      httpExecutor.awaitTermination(
          Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      grpc.shutdownNow();
      Thread.currentThread().interrupt();
    }
    httpExecutor.shutdownNow();
    closeRedis();
    LOG.log(Level.INFO, "Rate limit service stopped");
  }

  private void closeRedis() {
    if (redis != null) {
      redis.close();
    }
  }

  /** Builds and starts a {@link RateLimitServer}. Not thread-safe. */
  public static final class Builder {

    private Path config;
    private String host = "127.0.0.1";
    private int grpcPort = 8081;
    private int httpPort = 8080;
    private Ticker ticker = Ticker.system();
    private boolean tickerSet;
    private RedisStore redisStore;
    private Duration redisCommandTimeout = RedisRateLimiter.DEFAULT_COMMAND_TIMEOUT;
    private boolean redisCommandTimeoutSet;
    private int breakerFailures;
    private Duration breakerOpenFor;
    private Duration reloadInterval = Duration.ofSeconds(5);
    private Duration drainTimeout = Duration.ofSeconds(10);
    private long maxKeysPerRule = KeyedRateLimiter.Builder.DEFAULT_MAX_KEYS;
    private int httpThreads = 8;

    private Builder() {}

    /** The configuration: a YAML file, or a directory of them. Required. */
    public Builder config(Path config) {
      if (config == null) {
        throw new IllegalArgumentException("config must not be null");
      }
      this.config = config;
      return this;
    }

    /** The address both ports bind to, {@code 127.0.0.1} by default. */
    public Builder host(String host) {
      if (host == null || host.isEmpty()) {
        throw new IllegalArgumentException("host must not be empty, was " + host);
      }
      this.host = host;
      return this;
    }

    /** The gRPC port, 8081 by default; 0 picks a free one. */
    public Builder grpcPort(int grpcPort) {
      this.grpcPort = port(grpcPort, "grpcPort");
      return this;
    }

    /** The HTTP port, 8080 by default; 0 picks a free one. */
    public Builder httpPort(int httpPort) {
      this.httpPort = port(httpPort, "httpPort");
      return this;
    }

    /**
     * The clock of every limit, {@link Ticker#system()} by default. With Redis, limits use the
     * Redis server's clock unless a ticker is set here (then measured from its first reading: for a
     * single instance and tests).
     */
    public Builder ticker(Ticker ticker) {
      if (ticker == null) {
        throw new IllegalArgumentException("ticker must not be null");
      }
      this.ticker = ticker;
      this.tickerSet = true;
      return this;
    }

    /**
     * Keeps the counts in a standalone Redis, for example {@code redis://127.0.0.1:6379}, shared by
     * every instance of the service that uses it; in memory by default. While Redis fails, each
     * domain's {@code failure_policy} answers. Windows and precisions must then be whole
     * microseconds. One Redis store at most: this, {@link #redisSentinel} or {@link #redisCluster}.
     *
     * @throws IllegalArgumentException if {@code uri} is empty
     * @throws IllegalStateException if a Redis store was already set
     */
    public Builder redis(String uri) {
      return store(RedisStore.standalone(uri));
    }

    /**
     * As {@link #redis}, on the master named {@code masterName} found through the given Sentinels
     * (each a URI such as {@code redis://127.0.0.1:26379}); after a failover the counts continue on
     * the new master. The master and its replicas are reached as {@code username} (null for Redis's
     * {@code default} user) with {@code password}; each Sentinel with its URI's own credentials
     * ({@code redis://:secret@127.0.0.1:26379}), or else {@code sentinelPassword}. Passwords never
     * appear in a log line or a message; the arrays are copied.
     *
     * @param password the data nodes' password, or null for none
     * @param sentinelPassword the Sentinels' password, or null for none
     * @throws IllegalArgumentException if the list is empty or holds an empty URI, {@code
     *     masterName} is empty, or {@code username} is given without {@code password}
     * @throws IllegalStateException if a Redis store was already set
     */
    public Builder redisSentinel(
        List<String> sentinelUris,
        String masterName,
        String username,
        char[] password,
        char[] sentinelPassword) {
      return store(
          RedisStore.sentinel(sentinelUris, masterName, username, password, sentinelPassword));
    }

    /**
     * As {@link #redis}, on a Redis Cluster reached through any of {@code seedUris}; each count
     * lives on the node that serves its key's slot.
     *
     * @throws IllegalArgumentException if the list is empty or holds an empty URI
     * @throws IllegalStateException if a Redis store was already set
     */
    public Builder redisCluster(List<String> seedUris) {
      return store(RedisStore.cluster(seedUris));
    }

    /**
     * How long a decision waits for Redis before the domain's {@code failure_policy} answers
     * instead (by default {@link RedisRateLimiter#DEFAULT_COMMAND_TIMEOUT}, 50 ms). A call that
     * timed out is not retried: it may have counted.
     *
     * @throws IllegalArgumentException if {@code timeout} is null, not positive or over an hour
     */
    public Builder redisCommandTimeout(Duration timeout) {
      if (timeout == null
          || timeout.isNegative()
          || timeout.isZero()
          || timeout.compareTo(Duration.ofHours(1)) > 0) {
        throw new IllegalArgumentException(
            "redisCommandTimeout must be positive and at most an hour, was " + timeout);
      }
      this.redisCommandTimeout = timeout;
      this.redisCommandTimeoutSet = true;
      return this;
    }

    /**
     * Opens each rule's circuit breaker after {@code consecutiveFailures} failed Redis calls in a
     * row: for {@code openFor} the domain's {@code failure_policy} answers at once, without waiting
     * for Redis; then one call tries Redis again. By default 3 failures open it for 1 s.
     *
     * @throws IllegalArgumentException if {@code consecutiveFailures} is not positive or {@code
     *     openFor} is null or not positive
     */
    public Builder redisCircuitBreaker(int consecutiveFailures, Duration openFor) {
      if (consecutiveFailures <= 0) {
        throw new IllegalArgumentException(
            "consecutiveFailures must be positive, was " + consecutiveFailures);
      }
      if (openFor == null || openFor.isNegative() || openFor.isZero()) {
        throw new IllegalArgumentException("openFor must be positive, was " + openFor);
      }
      this.breakerFailures = consecutiveFailures;
      this.breakerOpenFor = openFor;
      return this;
    }

    private Builder store(RedisStore store) {
      if (redisStore != null) {
        throw new IllegalStateException(
            "one Redis store at most: "
                + redisStore.description()
                + " was set, then "
                + store.description());
      }
      this.redisStore = store;
      return this;
    }

    /**
     * How often the configuration files are checked for changes, 5 s by default; zero turns the
     * checks off (then only {@link #reloadNow()} reloads).
     */
    public Builder reloadInterval(Duration reloadInterval) {
      if (reloadInterval == null || reloadInterval.isNegative()) {
        throw new IllegalArgumentException(
            "reloadInterval must be zero or positive, was " + reloadInterval);
      }
      this.reloadInterval = reloadInterval;
      return this;
    }

    /** How long {@link #close()} waits for calls in flight, 10 s by default. */
    public Builder drainTimeout(Duration drainTimeout) {
      if (drainTimeout == null || drainTimeout.isNegative()) {
        throw new IllegalArgumentException(
            "drainTimeout must be zero or positive, was " + drainTimeout);
      }
      this.drainTimeout = drainTimeout;
      return this;
    }

    /**
     * The most distinct descriptor values one rule tracks at once ({@value
     * KeyedRateLimiter.Builder#DEFAULT_MAX_KEYS} by default); new values beyond it are over limit
     * until tracked ones empty.
     */
    public Builder maxKeysPerRule(long maxKeysPerRule) {
      if (maxKeysPerRule <= 0 || maxKeysPerRule > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(
            "maxKeysPerRule must be from 1 to " + Integer.MAX_VALUE + ", was " + maxKeysPerRule);
      }
      this.maxKeysPerRule = maxKeysPerRule;
      return this;
    }

    /**
     * Loads the configuration, binds both ports and starts serving.
     *
     * @throws ConfigException if the configuration cannot be read or is invalid
     * @throws IOException if a port cannot be bound
     * @throws IllegalStateException if no configuration was set, or a Redis timeout or breaker
     *     without a Redis store
     * @throws io.lettuce.core.RedisConnectionException if Redis was set and cannot be reached
     */
    public RateLimitServer start() throws IOException, ConfigException {
      if (config == null) {
        throw new IllegalStateException("config must be set");
      }
      if (redisStore == null && (redisCommandTimeoutSet || breakerFailures > 0)) {
        throw new IllegalStateException(
            "redisCommandTimeout and redisCircuitBreaker need a Redis store (redis, redisSentinel"
                + " or redisCluster)");
      }
      return new RateLimitServer(this);
    }

    private static int port(int port, String name) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException(name + " must be from 0 to 65535, was " + port);
      }
      return port;
    }
  }
}
