package io.slidingwindow.server;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.slidingwindow.server.admin.AdminRoutes;
import io.slidingwindow.server.admin.BackendWarnings;
import io.slidingwindow.server.admin.ServerMetrics;
import io.slidingwindow.server.config.ConfigWatcher;
import io.slidingwindow.server.config.RateLimitConfig;
import io.slidingwindow.server.decide.Decider;
import io.slidingwindow.server.decide.LimiterStore;
import io.slidingwindow.server.decide.MemoryStore;
import io.slidingwindow.server.decide.ServiceHealth;
import io.slidingwindow.server.grpc.GrpcPort;
import io.slidingwindow.server.http.DecisionRoutes;
import io.slidingwindow.server.http.HttpPort;
import io.slidingwindow.server.http.HttpTls;
import io.slidingwindow.server.redis.RedisStore;
import io.slidingwindow.server.settings.Settings;
import io.slidingwindow.server.settings.SettingsBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A rate limit service that speaks Envoy's rate limit protocol ({@code
 * envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit} over gRPC) and HTTP JSON, with
 * sliding windows: for every rule, at most N permits in any interval of the window's length, where
 * envoyproxy/ratelimit counts fixed windows.
 *
 * <p>Three ports: gRPC (Envoy's service, {@code grpc.health.v1}, reflection) and HTTP ({@code
 * /v1/decide}, {@code /json}, {@code /healthcheck}, {@code /livez}) for decisions; admin ({@code
 * /metrics}, {@code /v1/stats}, {@code /v1/config}, the dashboard, run-time overrides and quota
 * operations on one descriptor) on the loopback address, or behind a bearer token. The
 * configuration is envoyproxy/ratelimit's YAML (a file, or a directory of {@code .yaml} files, one
 * domain each) with extensions for windows of any length and several limits per descriptor; see
 * {@code docs/server.md}. It is reloaded when the files change; rules whose domain, selector and
 * limits are unchanged keep their counts, and a bad file leaves the last good configuration in
 * force. Counts live in this process's memory, or in Redis.
 *
 * <p>{@link #close()} stops accepting calls and waits up to the drain timeout for calls in flight.
 * Thread-safe.
 */
public final class RateLimitServer implements AutoCloseable {

  private static final System.Logger LOG = System.getLogger(RateLimitServer.class.getName());

  /** The log line that ends a stop. */
  static final String STOPPED = "Rate limit service stopped";

  private final Settings settings;
  private final List<AutoCloseable> opened = new ArrayList<>();
  private final ConfigWatcher watcher;
  private final ServiceHealth health;
  private final GrpcPort grpc;
  private final HttpPort http;
  private final HttpPort admin;
  private final EventLoopGroup httpLoops;
  private final EventLoopGroup adminLoop;
  private final ScheduledExecutorService tasks;
  private final LimiterStore store;
  private boolean closed;

  private RateLimitServer(Settings settings) throws IOException, ConfigException {
    this.settings = settings;
    Path config = settings.config() != null ? settings.config() : sampleConfig();
    watcher = new ConfigWatcher(config);
    RateLimitConfig rules = watcher.load();
    Settings.Lifecycle lifecycle = settings.lifecycle();
    if (settings.store().inMemory()) {
      store = new MemoryStore(lifecycle.ticker());
      health = new ServiceHealth("memory", store.toString());
    } else {
      RedisStore redis =
          RedisStore.connect(settings.store(), lifecycle.ticker(), lifecycle.clientTime());
      store = redis;
      health = redis.health();
    }
    httpLoops = new NioEventLoopGroup(0, new DefaultThreadFactory("slidingwindow-http", true));
    adminLoop = new NioEventLoopGroup(1, new DefaultThreadFactory("slidingwindow-admin", true));
    tasks =
        Executors.newSingleThreadScheduledExecutor(
            new DefaultThreadFactory("slidingwindow-tasks", true));
    try {
      ServerMetrics metrics =
          new ServerMetrics(health, settings.store().inMemory() ? "memory" : "redis");
      Decider decider = new Decider(rules, store, settings.requests(), lifecycle.ticker());
      watcher.attach(
          new ConfigWatcher.Listener() {
            @Override
            public void apply(RateLimitConfig config) throws ConfigException {
              decider.apply(config);
              metrics.apply(config);
            }

            @Override
            public void reloaded(boolean success) {
              metrics.reloaded(success);
            }
          });
      Settings.Ports ports = settings.ports();
      grpc =
          GrpcPort.open(
              new InetSocketAddress(ports.host(), ports.grpc()),
              settings.grpc(),
              settings.tls(),
              decider,
              metrics,
              health);
      opened.add(grpc::shutdownNow);
      http =
          new HttpPort(
              new InetSocketAddress(ports.host(), ports.http()),
              DecisionRoutes.router(decider, metrics, health),
              settings.http(),
              HttpTls.server(settings.tls(), true),
              httpLoops,
              reason -> metrics.refused("http", reason));
      opened.add(() -> http.close(0));
      String adminHost = ports.adminToken() != null ? ports.host() : "127.0.0.1";
      admin =
          new HttpPort(
              new InetSocketAddress(adminHost, ports.admin()),
              AdminRoutes.router(
                  ports.adminToken(), ports.adminAllowedHosts(), decider, watcher, metrics, health),
              settings.http(),
              HttpTls.server(settings.tls(), false),
              adminLoop,
              reason -> metrics.refused("admin", reason));
      opened.add(() -> admin.close(0));
      schedule(lifecycle);
      LOG.log(
          Level.INFO,
          "Rate limit service: gRPC on {0}:{1,number,#}, HTTP on {0}:{2,number,#}, admin on"
              + " {3}:{4,number,#}{5}; TLS {6}; configuration {7}, domains {8}; counts {9}",
          ports.host(),
          grpc.port(),
          http.port(),
          adminHost,
          admin.port(),
          ports.adminToken() != null ? " with a bearer token" : " (loopback only)",
          !settings.tls().enabled()
              ? "off"
              : settings.tls().clientCa() != null ? "on, client certificates required" : "on",
          config,
          rules.domains(),
          store);
    } catch (IOException | ConfigException | RuntimeException e) {
      closeAll();
      throw e;
    }
  }

  private void schedule(Settings.Lifecycle lifecycle) {
    if (!lifecycle.reloadInterval().isZero()) {
      long millis = lifecycle.reloadInterval().toMillis();
      var unused =
          tasks.scheduleWithFixedDelay(
              watcher::checkQuietly, millis, millis, TimeUnit.MILLISECONDS);
    }
    var unused =
        tasks.scheduleAtFixedRate(
            new BackendWarnings(health),
            BackendWarnings.PERIOD_SECONDS,
            BackendWarnings.PERIOD_SECONDS,
            TimeUnit.SECONDS);
  }

  /** Starts a service with {@code settings}. */
  static RateLimitServer start(Settings settings) throws IOException, ConfigException {
    return new RateLimitServer(settings);
  }

  /** Returns a builder, at the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** The port gRPC listens on (the bound one when 0 was asked for). */
  public int grpcPort() {
    return grpc.port();
  }

  /** The port HTTP listens on (the bound one when 0 was asked for). */
  public int httpPort() {
    return http.port();
  }

  /** The admin port (the bound one when 0 was asked for). */
  public int adminPort() {
    return admin.port();
  }

  /** Whether the service is ready for calls: not stopping, and its store answers. */
  public boolean ready() {
    return health.ready();
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
    if (stop()) {
      LOG.log(Level.INFO, STOPPED);
    }
  }

  /**
   * Does what {@link #close()} does but write its last log line, {@link #STOPPED}: the command line
   * writes that itself, past {@code java.util.logging}'s own shutdown hook.
   *
   * @return whether this call stopped the service (false: stopped before)
   */
  synchronized boolean stop() {
    if (closed) {
      return false;
    }
    closed = true;
    long drain = settings.lifecycle().drainTimeout().toNanos();
    long deadline = System.nanoTime() + drain;
    health.stopping();
    tasks.shutdownNow();
    grpc.shutdown();
    http.close(drain);
    admin.close(0);
    try {
      grpc.awaitTermination(Math.max(0, deadline - System.nanoTime()));
    } catch (InterruptedException e) {
      grpc.shutdownNow();
      Thread.currentThread().interrupt();
    }
    closeAll();
    return true;
  }

  private void closeAll() {
    for (AutoCloseable resource : opened) {
      try {
        resource.close();
      } catch (Exception e) {
        LOG.log(Level.DEBUG, "closing " + resource + " failed", e);
      }
    }
    tasks.shutdownNow();
    var unused = httpLoops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    unused = adminLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    store.close();
  }

  /** The sample configuration, copied out of the jar into a temporary file. */
  private static Path sampleConfig() throws IOException {
    Path file = Files.createTempFile("slidingwindow-sample-", ".yaml");
    file.toFile().deleteOnExit();
    try (InputStream in = RateLimitServer.class.getResourceAsStream("sample-config.yaml")) {
      if (in == null) {
        throw new IOException("the sample configuration is missing from the jar");
      }
      Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
    }
    return file;
  }

  /**
   * Builds and starts a {@link RateLimitServer}; each setter checks its value at once (see {@link
   * SettingsBuilder}). Not thread-safe.
   */
  public static final class Builder extends SettingsBuilder<Builder> {

    private Builder() {}

    /**
     * Loads the configuration, connects to the store, binds the three ports and starts serving.
     *
     * @throws ConfigException if the configuration cannot be read or is invalid
     * @throws IOException if a port cannot be bound, a TLS file read, or Redis reached
     * @throws IllegalStateException if the settings conflict (see {@link #settings()})
     */
    public RateLimitServer start() throws IOException, ConfigException {
      return RateLimitServer.start(settings());
    }
  }
}
