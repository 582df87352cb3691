package io.slidingwindow.server.settings;

import io.slidingwindow.DurationText;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.BiConsumer;
import java.util.regex.Pattern;

/**
 * Every setting that text can give, with its default: the one table that {@code --help}, the
 * documentation and {@link SettingsBuilder}'s defaults come from. Each is read from the argument
 * {@code --NAME}, the system property {@code slidingwindow.server.NAME} in camel case, or the
 * environment variable {@code SLIDINGWINDOW_NAME} in upper snake case; a secret only from the
 * environment, or from the file that {@code SLIDINGWINDOW_NAME_FILE} names.
 */
@SuppressWarnings("ImmutableEnumChecker") // each setter is a stateless lambda
public enum Option {
  CONFIG(
      "config",
      null,
      "PATH",
      "the rules: a YAML file, or a directory whose .yaml/.yml files are read in name order, one"
          + " domain each (default: a sample)",
      (b, v) -> b.config(Path.of(v))),
  HOST(
      "host",
      "0.0.0.0",
      "ADDRESS",
      "address of the gRPC and HTTP ports (and of admin when it has a token)",
      (b, v) -> b.host(v)),
  GRPC_PORT(
      "grpc-port",
      "8081",
      "N",
      "gRPC: Envoy's RateLimitService, grpc.health.v1, reflection",
      (b, v) -> b.grpcPort(number(v))),
  HTTP_PORT(
      "http-port",
      "8080",
      "N",
      "HTTP: /v1/decide, /json, /healthcheck, /livez",
      (b, v) -> b.httpPort(number(v))),
  ADMIN_PORT(
      "admin-port",
      "6070",
      "N",
      "admin: /metrics, /v1/stats, /v1/config, /dashboard; on 127.0.0.1 unless a token is set",
      (b, v) -> b.adminPort(number(v))),
  ADMIN_TOKEN(
      "admin-token",
      null,
      "TOKEN",
      "bearer token every admin request must carry; admin then listens on the host",
      (b, v) -> b.adminToken(v.toCharArray()),
      true),
  ADMIN_ALLOWED_HOSTS(
      "admin-allowed-hosts",
      null,
      "NAME,...",
      "without a token, host names besides localhost and IP addresses that admin answers at (a"
          + " proxy's, an alias of 127.0.0.1)",
      (b, v) -> b.adminAllowedHosts(list(v))),
  HTTP_READ_TIMEOUT(
      "http-read-timeout",
      "10s",
      "DURATION",
      "longest an HTTP request may take to arrive",
      (b, v) -> b.httpReadTimeout(duration(v))),
  HTTP_IDLE_TIMEOUT(
      "http-idle-timeout",
      "60s",
      "DURATION",
      "longest an HTTP connection may wait for its next request",
      (b, v) -> b.httpIdleTimeout(duration(v))),
  HTTP_MAX_CONNECTIONS(
      "http-max-connections",
      "1024",
      "N",
      "most open connections per HTTP port",
      (b, v) -> b.httpMaxConnections(number(v))),
  GRPC_MAX_CONNECTIONS(
      "grpc-max-connections",
      "10000",
      "N",
      "most open connections to the gRPC port",
      (b, v) -> b.grpcMaxConnections(number(v))),
  GRPC_MAX_CONCURRENT_CALLS(
      "grpc-max-concurrent-calls",
      "1000",
      "N",
      "most calls in flight on one gRPC connection (HTTP/2 max concurrent streams)",
      (b, v) -> b.grpcMaxConcurrentCalls(number(v))),
  GRPC_MAX_CONNECTION_IDLE(
      "grpc-max-connection-idle",
      "1h",
      "DURATION",
      "a gRPC connection without calls for this long is ended gracefully (GOAWAY); 0: never",
      (b, v) -> b.grpcMaxConnectionIdle(durationOrNever(v))),
  GRPC_PERMIT_KEEPALIVE_TIME(
      "grpc-permit-keepalive-time",
      "5s",
      "DURATION",
      "shortest interval allowed between a gRPC client's keepalive pings, with or without calls;"
          + " pings more often end the connection (GOAWAY too_many_pings)",
      (b, v) -> b.grpcPermitKeepAliveTime(duration(v))),
  REDIS(
      "redis",
      null,
      "URI",
      "count in a standalone Redis, redis://host:port (rediss:// for TLS); default: in memory",
      (b, v) -> b.redis(v)),
  REDIS_SENTINEL(
      "redis-sentinel",
      null,
      "URI,...",
      "count in the master --redis-master found through these Sentinels",
      (b, v) -> b.redisSentinelUris(list(v))),
  REDIS_MASTER(
      "redis-master",
      null,
      "NAME",
      "the Sentinels' name of the master",
      (b, v) -> b.redisMaster(v)),
  REDIS_CLUSTER(
      "redis-cluster",
      null,
      "URI,...",
      "count in a Redis Cluster reached through any of these nodes",
      (b, v) -> b.redisCluster(list(v))),
  REDIS_USERNAME(
      "redis-username",
      null,
      "NAME",
      "ACL user of the Redis data nodes (default: Redis's default user)",
      (b, v) -> b.redisUsername(v)),
  REDIS_PASSWORD(
      "redis-password",
      null,
      "PASSWORD",
      "password of the Redis data nodes, any deployment",
      (b, v) -> b.redisPassword(v.toCharArray()),
      true),
  REDIS_SENTINEL_PASSWORD(
      "redis-sentinel-password",
      null,
      "PASSWORD",
      "the Sentinels' own password",
      (b, v) -> b.redisSentinelPassword(v.toCharArray()),
      true),
  REDIS_TIMEOUT(
      "redis-timeout",
      "50ms",
      "DURATION",
      "how long a decision waits for Redis before the failure policy answers",
      (b, v) -> b.redisCommandTimeout(duration(v))),
  REDIS_BREAKER(
      "redis-breaker",
      "3/1s",
      "N/DURATION",
      "a rule's circuit breaker opens after N failed Redis calls in a row, for DURATION",
      Option::breaker),
  TLS_CERT(
      "tls-cert",
      null,
      "PATH",
      "certificate chain (PEM): gRPC, HTTP and admin serve TLS only",
      (b, v) -> b.tlsCert(Path.of(v))),
  TLS_KEY(
      "tls-key",
      null,
      "PATH",
      "private key of --tls-cert (PEM, PKCS#8)",
      (b, v) -> b.tlsKey(Path.of(v))),
  TLS_CLIENT_CA(
      "tls-client-ca",
      null,
      "PATH",
      "CA certificates (PEM) that gRPC and HTTP clients' certificates must chain to (mTLS)",
      (b, v) -> b.tlsClientCa(Path.of(v))),
  LIMIT_OVERRIDES(
      "limit-overrides",
      "true",
      "true|false",
      "honour a descriptor's own limit in place of the rules (its caller chooses it);"
          + " false: ignore it, the configuration decides",
      (b, v) -> b.limitOverrides(bool(v))),
  MAX_OVERRIDE_LIMITS(
      "max-override-limits",
      "16",
      "N",
      "most distinct override limits per domain at once",
      (b, v) -> b.maxOverrideLimits(number(v))),
  MAX_OVERRIDE_KEYS(
      "max-override-keys",
      "10000",
      "N",
      "most descriptors each override limit tracks in memory",
      (b, v) -> b.maxOverrideKeys(number(v))),
  MAX_KEYS_PER_RULE(
      "max-keys-per-rule",
      "100000",
      "N",
      "most descriptor values each rule tracks in memory",
      (b, v) -> b.maxKeysPerRule(number(v))),
  MAX_ADMIN_OVERRIDES(
      "max-admin-overrides",
      "1000",
      "N",
      "most run-time overrides the admin port keeps at once",
      (b, v) -> b.maxAdminOverrides(number(v))),
  RELOAD_SECONDS(
      "reload-seconds",
      "5",
      "N",
      "how often the rules are read again when changed; 0: never",
      (b, v) -> b.reloadInterval(Duration.ofSeconds(number(v)))),
  DRAIN_TIMEOUT(
      "drain-timeout",
      "10s",
      "DURATION",
      "how long stopping waits for calls in flight",
      (b, v) -> b.drainTimeout(duration(v))),
  LOG_FORMAT(
      "log-format",
      "text",
      "text|json",
      "one line of text, or of JSON, per event",
      SettingsBuilder::logFormat),
  LOG_LEVEL(
      "log-level", "info", "LEVEL", "error, warn, info, debug or trace", SettingsBuilder::logLevel);

  private final String name;
  private final String defaultText;
  private final String value;
  private final String help;
  private final BiConsumer<SettingsBuilder<?>, String> setter;
  private final boolean secret;

  Option(
      String name,
      String defaultText,
      String value,
      String help,
      BiConsumer<SettingsBuilder<?>, String> setter) {
    this(name, defaultText, value, help, setter, false);
  }

  Option(
      String name,
      String defaultText,
      String value,
      String help,
      BiConsumer<SettingsBuilder<?>, String> setter,
      boolean secret) {
    this.name = name;
    this.defaultText = defaultText;
    this.value = value;
    this.help = help;
    this.setter = setter;
    this.secret = secret;
  }

  /** The argument's name without its dashes, such as {@code grpc-port}. */
  public String optionName() {
    return name;
  }

  /** The default as text, or null when there is none. */
  public String defaultText() {
    return defaultText;
  }

  /** What the value looks like, such as {@code N} or {@code DURATION}. */
  public String valueHint() {
    return value;
  }

  /** One line of help. */
  public String help() {
    return help;
  }

  /** Whether it is a secret, read from the environment (or a file it names) only. */
  public boolean secret() {
    return secret;
  }

  /** The environment variable, such as {@code SLIDINGWINDOW_GRPC_PORT}. */
  public String environmentVariable() {
    return "SLIDINGWINDOW_" + name.toUpperCase(Locale.ROOT).replace('-', '_');
  }

  /** The system property, such as {@code slidingwindow.server.grpcPort}. */
  public String systemProperty() {
    StringBuilder camel = new StringBuilder("slidingwindow.server.");
    boolean upper = false;
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c == '-') {
        upper = true;
      } else {
        camel.append(upper ? Character.toUpperCase(c) : c);
        upper = false;
      }
    }
    return camel.toString();
  }

  /** The option whose argument is {@code --name}, or null. */
  public static Option byName(String name) {
    return Arrays.stream(values()).filter(o -> o.name.equals(name)).findFirst().orElse(null);
  }

  /**
   * Sets this option on {@code builder} from {@code text}.
   *
   * @throws IllegalArgumentException if {@code text} is no valid value
   * @throws IllegalStateException if it conflicts with what is set already
   */
  void apply(SettingsBuilder<?> builder, String text) {
    setter.accept(builder, secret ? text : text.trim());
  }

  private static void breaker(SettingsBuilder<?> builder, String text) {
    int slash = text.indexOf('/');
    if (slash < 0) {
      throw new IllegalArgumentException(
          "must be failures/duration such as 3/1s, was '" + text + "'");
    }
    builder.redisCircuitBreaker(
        number(text.substring(0, slash)), duration(text.substring(slash + 1)));
  }

  private static int number(String text) {
    try {
      return Integer.parseInt(text.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("must be a whole number, was '" + text + "'", e);
    }
  }

  private static Duration duration(String text) {
    Duration parsed = DurationText.parse(text.trim(), "the duration");
    if (parsed.compareTo(LONGEST) > 0) {
      // timers count in nanoseconds: a longer one would fail on its first use, not here
      throw new IllegalArgumentException(
          "the duration is too long (at most about 292 years), was '" + text.trim() + "'");
    }
    return parsed;
  }

  private static final Duration LONGEST = Duration.ofNanos(Long.MAX_VALUE);

  /** A zero of the short form ({@code 0}, {@code 0s}, {@code 00ms}...). */
  private static final Pattern SHORT_ZERO = Pattern.compile("0+(ns|us|ms|s|m|h|d)?");

  /**
   * A duration, or {@link Duration#ZERO} (never) for a zero in any spelling: {@code 0}, {@code 0s},
   * or an ISO-8601 zero such as {@code PT0S} or {@code PT0M0S}.
   */
  private static Duration durationOrNever(String text) {
    String trimmed = text.trim();
    if (SHORT_ZERO.matcher(trimmed).matches()) {
      return Duration.ZERO;
    }
    try {
      if (Duration.parse(trimmed.toUpperCase(Locale.ROOT)).isZero()) {
        return Duration.ZERO;
      }
    } catch (DateTimeParseException e) {
      // not ISO-8601: the short form's parse below says what is wrong
    }
    return duration(trimmed);
  }

  private static boolean bool(String text) {
    return switch (text.trim().toLowerCase(Locale.ROOT)) {
      case "true", "yes", "on", "1" -> true;
      case "false", "no", "off", "0" -> false;
      default -> throw new IllegalArgumentException("must be true or false, was '" + text + "'");
    };
  }

  private static List<String> list(String commaSeparated) {
    return Arrays.stream(commaSeparated.split(",", -1)).map(String::trim).toList();
  }
}
