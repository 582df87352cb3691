package io.slidingwindow.server.settings;

import io.slidingwindow.Ticker;
import io.slidingwindow.server.settings.Settings.LogFormat;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Collects the service's settings and checks each at once: a bad value throws {@link
 * IllegalArgumentException} naming the setting and the value. Starts from the defaults of {@link
 * Option}, the one place that holds them. Not thread-safe.
 *
 * @param <B> the concrete builder, returned by every setter
 */
public abstract class SettingsBuilder<B extends SettingsBuilder<B>>
    extends StoreSettingsBuilder<B> {

  private static final List<String> LOG_LEVELS = List.of("error", "warn", "info", "debug", "trace");
  private static final Pattern HOST_NAME = Pattern.compile("[a-z0-9_.-]+");

  Path config;
  String host;
  int grpcPort;
  int httpPort;
  int adminPort;
  Secret adminToken;
  List<String> adminAllowedHosts = List.of();
  Duration httpReadTimeout;
  Duration httpIdleTimeout;
  int httpMaxConnections;
  int grpcMaxConnections;
  int grpcMaxConcurrentCalls;
  Duration grpcMaxConnectionIdle;
  Duration grpcPermitKeepAliveTime;
  Path tlsCert;
  Path tlsKey;
  Path tlsClientCa;
  boolean limitOverrides;
  int maxOverrideLimits;
  long maxOverrideKeys;
  long maxKeysPerRule;
  int maxAdminOverrides;
  Duration reloadInterval;
  Duration drainTimeout;
  Ticker ticker = Ticker.system();
  boolean tickerSet;
  LogFormat logFormat;
  String logLevel;

  /** Starts from the defaults. */
  protected SettingsBuilder() {
    for (Option option : Option.values()) {
      if (option.defaultText() != null) {
        option.apply(this, option.defaultText());
      }
    }
    redisTimeoutSet = false;
    breakerSet = false;
  }

  /** The configuration: a YAML file, or a directory of them; by default a sample. */
  public B config(Path config) {
    this.config = require(config, "config");
    return self();
  }

  /** The address the decision ports bind to, {@code 0.0.0.0} (every interface) by default. */
  public B host(String host) {
    if (host == null || host.isBlank()) {
      throw new IllegalArgumentException("host must not be empty, was " + host);
    }
    this.host = host.trim();
    return self();
  }

  /** The gRPC port, 8081 by default; 0 picks a free one. */
  public B grpcPort(int grpcPort) {
    this.grpcPort = port(grpcPort, "grpcPort");
    return self();
  }

  /** The HTTP port, 8080 by default; 0 picks a free one. */
  public B httpPort(int httpPort) {
    this.httpPort = port(httpPort, "httpPort");
    return self();
  }

  /** The admin port, 6070 by default; 0 picks a free one. */
  public B adminPort(int adminPort) {
    this.adminPort = port(adminPort, "adminPort");
    return self();
  }

  /**
   * The bearer token every admin request must carry ({@code Authorization: Bearer TOKEN}); with it
   * the admin port binds to {@link #host}, without it to the loopback address only. Copied.
   *
   * @throws IllegalArgumentException if {@code token} is empty
   */
  public B adminToken(char[] token) {
    this.adminToken = Secret.of(token, "adminToken");
    return self();
  }

  /**
   * Without an admin token, the host names besides {@code localhost} and IP addresses that the
   * admin port answers at, none by default: a request is served only if its {@code Host} names one
   * of them (any port), since a web page whose own host name is rebound to 127.0.0.1 would
   * otherwise read the port from the operator's browser. Compared exactly, ignoring case; blank
   * entries are skipped.
   *
   * @throws IllegalArgumentException if a name holds anything but letters, digits, {@code .},
   *     {@code -} and {@code _} (a port, a wildcard, a URL)
   */
  public B adminAllowedHosts(List<String> names) {
    List<String> kept = new ArrayList<>();
    for (String name : require(names, "adminAllowedHosts")) {
      String trimmed = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
      if (trimmed.isEmpty()) {
        continue;
      }
      if (!HOST_NAME.matcher(trimmed).matches()) {
        throw new IllegalArgumentException(
            "adminAllowedHosts holds host names without a port or wildcard (letters, digits, '.',"
                + " '-', '_'), was '"
                + name
                + "'");
      }
      if (!kept.contains(trimmed)) {
        kept.add(trimmed);
      }
    }
    this.adminAllowedHosts = List.copyOf(kept);
    return self();
  }

  /** The longest an HTTP request may take to arrive, 10 s by default. */
  public B httpReadTimeout(Duration timeout) {
    this.httpReadTimeout = positive(timeout, "httpReadTimeout");
    return self();
  }

  /** The longest an HTTP connection may wait for its next request, 60 s by default. */
  public B httpIdleTimeout(Duration timeout) {
    this.httpIdleTimeout = positive(timeout, "httpIdleTimeout");
    return self();
  }

  /** The most open connections per HTTP port, 1024 by default; further ones are closed at once. */
  public B httpMaxConnections(int maxConnections) {
    if (maxConnections <= 0) {
      throw new IllegalArgumentException(
          "httpMaxConnections must be positive, was " + maxConnections);
    }
    this.httpMaxConnections = maxConnections;
    return self();
  }

  /**
   * The most open connections to the gRPC port, 10 000 by default; further ones are closed as they
   * are accepted. Envoy opens connections per worker thread, so a replica sees about Envoy
   * instances times their workers.
   */
  public B grpcMaxConnections(int maxConnections) {
    if (maxConnections <= 0) {
      throw new IllegalArgumentException(
          "grpcMaxConnections must be positive, was " + maxConnections);
    }
    this.grpcMaxConnections = maxConnections;
    return self();
  }

  /**
   * The most calls in flight on one gRPC connection, 1000 by default: HTTP/2's {@code
   * SETTINGS_MAX_CONCURRENT_STREAMS}, so a client holds further calls until one ends, or opens
   * another connection (Envoy does).
   */
  public B grpcMaxConcurrentCalls(int maxCalls) {
    if (maxCalls <= 0) {
      throw new IllegalArgumentException(
          "grpcMaxConcurrentCalls must be positive, was " + maxCalls);
    }
    this.grpcMaxConcurrentCalls = maxCalls;
    return self();
  }

  /**
   * How long a gRPC connection without a call in flight is kept, 1 h by default, then ended
   * gracefully (GOAWAY: its client reconnects when it next calls); zero: never. Keepalive pings do
   * not count as calls.
   *
   * @throws IllegalArgumentException if it is negative, or between zero and one second (gRPC's
   *     least)
   */
  public B grpcMaxConnectionIdle(Duration idle) {
    if (idle == null
        || idle.isNegative()
        || (!idle.isZero() && idle.compareTo(Duration.ofSeconds(1)) < 0)) {
      throw new IllegalArgumentException(
          "grpcMaxConnectionIdle must be zero (never) or at least 1s, was " + idle);
    }
    this.grpcMaxConnectionIdle = idle;
    return self();
  }

  /**
   * The shortest interval allowed between a gRPC client's keepalive pings, 5 s by default, with or
   * without calls in flight: Envoy's {@code connection_keepalive} pings at its {@code interval}
   * (plus jitter) also on a connection without calls, so this must stay below that interval. A
   * client that pings more often (three times too early) is sent GOAWAY {@code too_many_pings} and
   * its connection is closed; gRPC's own default allows a ping every five minutes only.
   */
  public B grpcPermitKeepAliveTime(Duration interval) {
    this.grpcPermitKeepAliveTime = positive(interval, "grpcPermitKeepAliveTime");
    return self();
  }

  /**
   * Serves gRPC and HTTP (and admin) over TLS only, with the certificate chain {@code cert} and its
   * private key {@code key}, both PEM files (the key in PKCS#8); read when the service starts.
   *
   * @throws IllegalArgumentException if either is null
   */
  public B tls(Path cert, Path key) {
    return tlsCert(cert).tlsKey(key);
  }

  /** The certificate chain of {@link #tls}, given apart from its key. */
  B tlsCert(Path cert) {
    this.tlsCert = require(cert, "tlsCert");
    return self();
  }

  /** The private key of {@link #tls}, given apart from its certificate. */
  B tlsKey(Path key) {
    this.tlsKey = require(key, "tlsKey");
    return self();
  }

  /**
   * Requires a client certificate that chains to one of the CA certificates in {@code caFile} (PEM)
   * on the gRPC and HTTP ports (mutual TLS); needs {@link #tls}.
   */
  public B tlsClientCa(Path caFile) {
    this.tlsClientCa = require(caFile, "tlsClientCa");
    return self();
  }

  /**
   * Whether a descriptor's own {@code limit} (Envoy's {@code RateLimitOverride}) is honoured, true
   * by default, as envoyproxy/ratelimit does: it then replaces the configuration for its
   * descriptor, so whoever can call the decision ports chooses its own limit. When false it is
   * ignored and the configuration decides.
   */
  public B limitOverrides(boolean limitOverrides) {
    this.limitOverrides = limitOverrides;
    return self();
  }

  /**
   * The most distinct override limits kept per domain at once, 16 by default; an override limit
   * unused for longer than its window (on Redis, or for a minute if that is longer) is dropped to
   * make room.
   */
  public B maxOverrideLimits(int maxOverrideLimits) {
    if (maxOverrideLimits <= 0) {
      throw new IllegalArgumentException(
          "maxOverrideLimits must be positive, was " + maxOverrideLimits);
    }
    this.maxOverrideLimits = maxOverrideLimits;
    return self();
  }

  /** The most descriptors each override limit tracks at once in memory, 10000 by default. */
  public B maxOverrideKeys(long maxOverrideKeys) {
    this.maxOverrideKeys = keys(maxOverrideKeys, "maxOverrideKeys");
    return self();
  }

  /**
   * The most distinct descriptor values one rule tracks at once in memory, 100000 by default; new
   * values beyond it are over limit until tracked ones empty.
   */
  public B maxKeysPerRule(long maxKeysPerRule) {
    this.maxKeysPerRule = keys(maxKeysPerRule, "maxKeysPerRule");
    return self();
  }

  /**
   * The most run-time overrides the admin port keeps at once ({@code PUT /v1/overrides}), 1000 by
   * default; a new one beyond it is refused until one is removed.
   */
  public B maxAdminOverrides(int maxAdminOverrides) {
    if (maxAdminOverrides <= 0) {
      throw new IllegalArgumentException(
          "maxAdminOverrides must be positive, was " + maxAdminOverrides);
    }
    this.maxAdminOverrides = maxAdminOverrides;
    return self();
  }

  /**
   * How often the configuration files are checked for changes, 5 s by default; zero turns the
   * checks off.
   */
  public B reloadInterval(Duration reloadInterval) {
    if (reloadInterval == null || reloadInterval.isNegative()) {
      throw new IllegalArgumentException(
          "reloadInterval must be zero or positive, was " + reloadInterval);
    }
    this.reloadInterval = reloadInterval;
    return self();
  }

  /** How long stopping waits for calls in flight, 10 s by default. */
  public B drainTimeout(Duration drainTimeout) {
    if (drainTimeout == null || drainTimeout.isNegative()) {
      throw new IllegalArgumentException(
          "drainTimeout must be zero or positive, was " + drainTimeout);
    }
    this.drainTimeout = drainTimeout;
    return self();
  }

  /**
   * The clock of every limit, {@link Ticker#system()} by default. With Redis, limits use the Redis
   * server's clock unless a ticker is set here (then measured from its first reading: for a single
   * instance and tests).
   */
  public B ticker(Ticker ticker) {
    this.ticker = require(ticker, "ticker");
    this.tickerSet = true;
    return self();
  }

  /** The log lines' format: {@code text} (the default) or {@code json}. */
  public B logFormat(String format) {
    String name = format == null ? "" : format.trim().toUpperCase(Locale.ROOT);
    for (LogFormat candidate : LogFormat.values()) {
      if (candidate.name().equals(name)) {
        this.logFormat = candidate;
        return self();
      }
    }
    throw new IllegalArgumentException("logFormat must be text or json, was " + format);
  }

  /** The least severe level logged: error, warn, info (the default), debug or trace. */
  public B logLevel(String level) {
    String name = level == null ? "" : level.trim().toLowerCase(Locale.ROOT);
    if (!LOG_LEVELS.contains(name)) {
      throw new IllegalArgumentException(
          "logLevel must be one of " + LOG_LEVELS + ", was " + level);
    }
    this.logLevel = name;
    return self();
  }

  /**
   * The settings, checked as a whole.
   *
   * @throws IllegalStateException if a Redis timeout, breaker or credentials were set without a
   *     Redis store, or a client CA without TLS
   */
  public Settings settings() {
    if ((tlsCert == null) != (tlsKey == null)) {
      throw new IllegalStateException("tls needs both a certificate and its key, had only one");
    }
    if (tlsClientCa != null && tlsCert == null) {
      throw new IllegalStateException("tlsClientCa needs tls (a certificate and its key)");
    }
    return new Settings(
        config,
        new Settings.Ports(host, grpcPort, httpPort, adminPort, adminToken, adminAllowedHosts),
        new Settings.Http(httpReadTimeout, httpIdleTimeout, httpMaxConnections),
        new Settings.Grpc(
            grpcMaxConnections,
            grpcMaxConcurrentCalls,
            grpcMaxConnectionIdle,
            grpcPermitKeepAliveTime),
        storeSettings(),
        new Settings.Tls(tlsCert, tlsKey, tlsClientCa),
        new Settings.Requests(
            limitOverrides, maxOverrideLimits, maxOverrideKeys, maxKeysPerRule, maxAdminOverrides),
        new Settings.Lifecycle(reloadInterval, drainTimeout, ticker, tickerSet),
        new Settings.Logs(logFormat, logLevel));
  }

  private static int port(int port, String name) {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException(name + " must be from 0 to 65535, was " + port);
    }
    return port;
  }

  private static long keys(long keys, String name) {
    if (keys <= 0 || keys > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          name + " must be from 1 to " + Integer.MAX_VALUE + ", was " + keys);
    }
    return keys;
  }

  private static <T> T require(T value, String name) {
    if (value == null) {
      throw new IllegalArgumentException(name + " must not be null");
    }
    return value;
  }
}
