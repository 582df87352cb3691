package io.slidingwindow.server.redis;

import io.slidingwindow.FailurePolicy;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.PlanResolver;
import io.slidingwindow.Ticker;
import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.redis.RedisHealth;
import io.slidingwindow.redis.RedisRateLimiter;
import io.slidingwindow.redis.RedisUris;
import io.slidingwindow.redis.lettuce.LettuceBackends;
import io.slidingwindow.server.decide.LimiterStore;
import io.slidingwindow.server.decide.MemoryStore;
import io.slidingwindow.server.decide.ServiceHealth;
import io.slidingwindow.server.settings.Secret;
import io.slidingwindow.server.settings.Settings;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Counts in Redis: every rule's limiter is a {@link RedisRateLimiter} on one connection, deciding
 * without blocking ({@code decideAsync}, requests that wait at the same moment sharing one script
 * call), answered by the domain's failure policy ({@link PolicyAnswers}) when Redis does not answer
 * within the command timeout, errs, or the rule's circuit breaker is open.
 *
 * <p>A probe runs the library's health script every {@link #PROBE_INTERVAL} and waits at most
 * {@link #PROBE_TIMEOUT}; the service is ready while the last probe succeeded. So readiness goes
 * within about two seconds of Redis ceasing to answer, and comes back within a second of its return
 * (after Lettuce has reconnected, at most a second after the server listens again).
 *
 * <p>Credentials: a Sentinel master's through the library's Sentinel connection; for a standalone
 * server and a Cluster's nodes, written into each URI that carries none (percent-encoded), as
 * Lettuce reads them. {@code rediss://} URIs connect over TLS, trusting the JVM's trust store.
 * Thread-safe.
 */
public final class RedisStore implements LimiterStore {

  /** How often Redis is probed. */
  static final Duration PROBE_INTERVAL = Duration.ofSeconds(1);

  /** How long a probe waits for Redis. */
  static final Duration PROBE_TIMEOUT = Duration.ofSeconds(1);

  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private final RedisBackend backend;
  private final String description;
  private final Settings.Store settings;
  private final Ticker clientTime;
  private final MemoryStore local;
  private final ServiceHealth health;
  private final ScheduledExecutorService probe;

  private RedisStore(
      RedisBackend backend,
      String description,
      Settings.Store settings,
      Ticker clientTime,
      Ticker ticker) {
    this.backend = backend;
    this.description = description;
    this.settings = settings;
    this.clientTime = clientTime;
    this.local = new MemoryStore(ticker);
    this.health = new ServiceHealth("redis", description);
    this.probe =
        Executors.newSingleThreadScheduledExecutor(
            runnable -> {
              Thread thread = new Thread(runnable, "slidingwindow-redis-probe");
              thread.setDaemon(true);
              return thread;
            });
    var unused =
        probe.scheduleWithFixedDelay(
            this::probeOnce,
            PROBE_INTERVAL.toMillis(),
            PROBE_INTERVAL.toMillis(),
            TimeUnit.MILLISECONDS);
  }

  /**
   * Connects to the Redis of {@code settings} and starts probing it.
   *
   * @param ticker the clock of the in-memory fallback of {@link FailurePolicy#LOCAL}
   * @param clientTime whether the limiters count on {@code ticker} instead of Redis's clock
   * @throws IOException if Redis cannot be reached or refuses the credentials; the message names
   *     the store and Redis's reason, without passwords
   * @throws IllegalArgumentException if a URI is not a Redis URI
   */
  public static RedisStore connect(Settings.Store settings, Ticker ticker, boolean clientTime)
      throws IOException {
    Settings.Redis redis = settings.redis();
    String description = describe(redis);
    RedisBackend backend;
    try {
      backend =
          switch (redis.mode()) {
            case STANDALONE ->
                LettuceBackends.standalone(withCredentials(redis.uris().get(0), redis));
            case SENTINEL ->
                LettuceBackends.sentinel(
                    redis.uris(),
                    redis.master(),
                    redis.username(),
                    chars(redis.password()),
                    chars(redis.sentinelPassword()));
            case CLUSTER ->
                LettuceBackends.cluster(
                    redis.uris().stream().map(uri -> withCredentials(uri, redis)).toList());
          };
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(RedisUris.mask(e.getMessage()));
    } catch (RuntimeException e) {
      // Not chained: the client's messages may quote a URI with its password.
      throw new IOException(
          "cannot reach Redis (" + description + "): " + RedisUris.mask(reasons(e)));
    }
    return new RedisStore(backend, description, settings, clientTime ? ticker : null, ticker);
  }

  /** The health this store keeps: readiness from the probe, and the decisions Redis failed. */
  public ServiceHealth health() {
    return health;
  }

  @Override
  public KeyedRateLimiter<String> create(
      List<Limit> limits, FailurePolicy failurePolicy, long maxKeys, PlanResolver<String> plans) {
    PolicyAnswers answers =
        new PolicyAnswers(
            limits,
            failurePolicy,
            failurePolicy == FailurePolicy.LOCAL
                ? local.create(limits, failurePolicy, maxKeys, plans)
                : null,
            settings.breakerOpenFor(),
            health);
    RedisRateLimiter.Builder builder =
        RedisRateLimiter.builder(backend)
            .limits(limits)
            .commandTimeout(settings.commandTimeout())
            .circuitBreaker(settings.breakerFailures(), settings.breakerOpenFor())
            // The domain's policy, and the count of backend failures, live in the answers: the
            // limiter hands every failed call to them as its fallback.
            .failurePolicy(FailurePolicy.LOCAL)
            .fallback(answers);
    if (clientTime != null) {
      builder.clientTime(clientTime);
    }
    return builder.build(plans);
  }

  @Override
  public boolean inMemory() {
    return false;
  }

  @Override
  public void close() {
    probe.shutdownNow();
    backend.close();
  }

  @Override
  public String toString() {
    return "on "
        + description
        + ", command timeout "
        + settings.commandTimeout().toMillis()
        + " ms, breaker open after "
        + settings.breakerFailures()
        + " failures for "
        + settings.breakerOpenFor().toMillis()
        + " ms";
  }

  private void probeOnce() {
    RedisHealth probed;
    try {
      probed = backend.health(PROBE_TIMEOUT);
    } catch (RuntimeException e) {
      health.backend(false, "the probe failed: " + RedisUris.mask(String.valueOf(e)));
      return;
    }
    health.backend(probed.up(), RedisUris.mask(probed.detail()));
  }

  /** The store as messages and the start-up line name it, without passwords. */
  static String describe(Settings.Redis redis) {
    String credentials =
        (redis.username() != null ? " as " + redis.username() : "")
            + (redis.password() != null ? " with a password" : "")
            + (redis.sentinelPassword() != null ? ", Sentinels with a password" : "");
    return switch (redis.mode()) {
          case STANDALONE -> "standalone " + RedisUris.mask(redis.uris().get(0));
          case SENTINEL ->
              "sentinel " + redis.master() + " via " + RedisUris.mask(redis.uris().toString());
          case CLUSTER -> "cluster " + RedisUris.mask(redis.uris().toString());
        }
        + credentials;
  }

  /**
   * {@code uri} with the data nodes' user and password of {@code redis} written into it, unless
   * none is set; a URI with credentials of its own is refused then, so that no password is silently
   * ignored.
   */
  static String withCredentials(String uri, Settings.Redis redis) {
    if (redis.password() == null) {
      return uri;
    }
    int scheme = uri.indexOf("://");
    if (scheme < 0) {
      throw new IllegalArgumentException(
          "a Redis URI must start with redis:// or rediss://, was " + RedisUris.mask(uri));
    }
    int hostStart = scheme + 3;
    int pathStart = uri.indexOf('/', hostStart);
    String authority =
        pathStart < 0 ? uri.substring(hostStart) : uri.substring(hostStart, pathStart);
    if (authority.contains("@")) {
      throw new IllegalArgumentException(
          "the Redis password is set, and the URI "
              + RedisUris.mask(uri)
              + " carries credentials too; give them in one place");
    }
    String user = redis.username() == null ? "" : percentEncoded(redis.username().toCharArray());
    return uri.substring(0, hostStart)
        + user
        + ":"
        + percentEncoded(redis.password().chars())
        + "@"
        + uri.substring(hostStart);
  }

  /** {@code text} as URI user info may hold it: unreserved characters kept, all else %XX. */
  private static String percentEncoded(char[] text) {
    ByteBuffer bytes = StandardCharsets.UTF_8.encode(CharBuffer.wrap(text));
    StringBuilder out = new StringBuilder();
    while (bytes.hasRemaining()) {
      int b = bytes.get() & 0xff;
      boolean unreserved =
          (b >= 'a' && b <= 'z')
              || (b >= 'A' && b <= 'Z')
              || (b >= '0' && b <= '9')
              || b == '-'
              || b == '.'
              || b == '_'
              || b == '~';
      if (unreserved) {
        out.append((char) b);
      } else {
        out.append('%').append(HEX[b >> 4]).append(HEX[b & 15]);
      }
    }
    return out.toString();
  }

  private static char[] chars(Secret secret) {
    return secret == null ? null : secret.chars();
  }

  /** The messages of {@code e} and its causes, joined. */
  private static String reasons(Throwable e) {
    StringBuilder text = new StringBuilder(String.valueOf(e.getMessage()));
    for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
      text.append(": ").append(cause.getMessage());
    }
    return text.toString();
  }
}
