package io.slidingwindow.server.settings;

import io.slidingwindow.Ticker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Every setting of the rate limit service, validated: built by {@link SettingsBuilder} (from code)
 * or by {@link SettingsSources} (from arguments, system properties and the environment), whose
 * table {@link Option} holds every default once. Immutable.
 *
 * @param config the configuration: a YAML file, or a directory of them; null for the sample
 * @param ports where the service listens
 * @param http the HTTP servers' connection bounds
 * @param grpc the gRPC port's bounds on connections, calls and keepalive pings
 * @param store where counts live
 * @param tls TLS of the gRPC and HTTP ports
 * @param requests what requests may ask
 * @param lifecycle reloading, draining and the clock
 * @param logs the log lines' format and level (read by the command line only)
 */
public record Settings(
    Path config,
    Ports ports,
    Http http,
    Grpc grpc,
    Store store,
    Tls tls,
    Requests requests,
    Lifecycle lifecycle,
    Logs logs) {

  /**
   * Where the service listens; port 0 picks a free one.
   *
   * @param host the address of the decision ports (gRPC, HTTP), and of admin when it has a token
   * @param grpc the gRPC port: Envoy's protocol, health, reflection
   * @param http the HTTP port: {@code /v1/decide}, {@code /json}, {@code /healthcheck}
   * @param admin the admin port: metrics, stats, configuration, dashboard
   * @param adminToken the bearer token every admin request must carry, or null: then admin listens
   *     on the loopback address only
   * @param adminAllowedHosts without a token, the host names (lower case, no port) besides {@code
   *     localhost} and IP addresses that the admin port answers at
   */
  public record Ports(
      String host,
      int grpc,
      int http,
      int admin,
      Secret adminToken,
      List<String> adminAllowedHosts) {

    public Ports {
      adminAllowedHosts = List.copyOf(adminAllowedHosts);
    }

    /** Ports with no allowed host names beyond {@code localhost} and IP addresses. */
    public Ports(String host, int grpc, int http, int admin, Secret adminToken) {
      this(host, grpc, http, admin, adminToken, List.of());
    }
  }

  /**
   * The HTTP servers' bounds on each connection.
   *
   * @param readTimeout the longest a request may take to arrive, from its first byte to its last
   * @param idleTimeout the longest a connection may wait for its next request
   * @param maxConnections the most open connections per HTTP port; further ones are closed at once
   */
  public record Http(Duration readTimeout, Duration idleTimeout, int maxConnections) {}

  /**
   * The gRPC port's bounds on connections, calls and keepalive pings.
   *
   * @param maxConnections the most open connections; further ones are closed as they are accepted
   * @param maxConcurrentCalls the most calls in flight on one connection, told to the client as
   *     HTTP/2's {@code SETTINGS_MAX_CONCURRENT_STREAMS}: a client holds further calls until one
   *     ends, or opens another connection (Envoy does)
   * @param maxConnectionIdle how long a connection without a call in flight is kept before the
   *     service ends it gracefully (GOAWAY); zero: never
   * @param permitKeepAliveTime the shortest interval allowed between a client's keepalive pings,
   *     with or without calls in flight; a client that pings more often is sent GOAWAY {@code
   *     too_many_pings} and its connection closed
   */
  public record Grpc(
      int maxConnections,
      int maxConcurrentCalls,
      Duration maxConnectionIdle,
      Duration permitKeepAliveTime) {}

  /**
   * Where counts live: in memory when {@code redis} is null.
   *
   * @param redis the Redis deployment, or null
   * @param commandTimeout how long a decision waits for Redis before the failure policy answers
   * @param breakerFailures failed calls in a row that open a rule's circuit breaker
   * @param breakerOpenFor how long an open breaker sends calls to the failure policy
   */
  public record Store(
      Redis redis, Duration commandTimeout, int breakerFailures, Duration breakerOpenFor) {

    /** Whether counts live in this process's memory. */
    public boolean inMemory() {
      return redis == null;
    }
  }

  /** How Redis is deployed. */
  public enum RedisMode {
    /** One server (and its replicas, unused). */
    STANDALONE,
    /** A master found through Sentinels. */
    SENTINEL,
    /** A Redis Cluster, reached through any of its nodes. */
    CLUSTER
  }

  /**
   * A Redis deployment and its credentials.
   *
   * @param mode how it is deployed
   * @param uris the server's URI (standalone), the Sentinels' or the seed nodes'; {@code rediss://}
   *     for TLS
   * @param master the master's name (Sentinel), else null
   * @param username the ACL user of the data nodes, or null for {@code default}
   * @param password the data nodes' password, or null (one in a URI is used as it is)
   * @param sentinelPassword the Sentinels' password, or null
   */
  public record Redis(
      RedisMode mode,
      List<String> uris,
      String master,
      String username,
      Secret password,
      Secret sentinelPassword) {

    public Redis {
      uris = List.copyOf(uris);
    }
  }

  /**
   * TLS of the gRPC and HTTP ports (and admin's), off when {@code cert} is null.
   *
   * @param cert the certificate chain, PEM
   * @param key its private key, PEM (PKCS#8)
   * @param clientCa the CA certificates client certificates must chain to, PEM; null: no client
   *     certificate asked for on the decision ports
   */
  public record Tls(Path cert, Path key, Path clientCa) {

    /** Whether TLS is on. */
    public boolean enabled() {
      return cert != null;
    }
  }

  /**
   * What requests may ask.
   *
   * @param limitOverrides whether a descriptor's own {@code limit} is honoured (else it is ignored
   *     and the configuration decides)
   * @param maxOverrideLimits the most distinct override limits kept per domain at once
   * @param maxOverrideKeys the most descriptors each override limit tracks at once (in memory)
   * @param maxKeysPerRule the most descriptor values each configured rule tracks at once (in
   *     memory)
   * @param maxAdminOverrides the most run-time overrides the admin port keeps at once
   */
  public record Requests(
      boolean limitOverrides,
      int maxOverrideLimits,
      long maxOverrideKeys,
      long maxKeysPerRule,
      int maxAdminOverrides) {}

  /**
   * Reloading, draining and the clock.
   *
   * @param reloadInterval how often the configuration files are checked; zero: never
   * @param drainTimeout how long stopping waits for calls in flight
   * @param ticker the clock of every in-memory limit
   * @param clientTime whether Redis limits use {@code ticker} too, instead of the Redis server's
   *     clock (a ticker set in code: for tests and a single instance)
   */
  public record Lifecycle(
      Duration reloadInterval, Duration drainTimeout, Ticker ticker, boolean clientTime) {}

  /** The format of log lines. */
  public enum LogFormat {
    /** One line of text per event. */
    TEXT,
    /** One JSON object per line and event. */
    JSON
  }

  /**
   * How the command line writes log lines.
   *
   * @param format text or JSON lines
   * @param level the least severe level written: {@code error}, {@code warn}, {@code info}, {@code
   *     debug} or {@code trace}
   */
  public record Logs(LogFormat format, String level) {}
}
