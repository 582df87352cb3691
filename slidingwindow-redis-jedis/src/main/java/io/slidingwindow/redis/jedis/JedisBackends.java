package io.slidingwindow.redis.jedis;

import io.slidingwindow.redis.RedisBackend;
import java.net.URI;
import java.time.Duration;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.util.JedisURIHelper;

/**
 * {@link RedisBackend}s that talk to a standalone Redis through Jedis instead of Lettuce. Limiters
 * and counters built on them ({@code RedisRateLimiter.builder(backend)}, {@code
 * RedisCounters.builder(backend)}) run the same scripts on the same keys, with the same retry
 * rules, as on Lettuce: a Jedis instance and a Lettuce instance with the same limits and key
 * prefix share one window per id.
 *
 * <p>Jedis blocks: a call waits on the caller's thread until Redis answers or the client's socket
 * timeout passes, also on the limiters' asynchronous methods (their stages are complete when
 * returned). So the socket timeout, not the limiter's command timeout, bounds how long a call can
 * wait; give both the same value. A call that times out is never sent again, and the limiter's
 * failure policy answers. Requests that wait at the same moment still share script calls.
 *
 * <p>Standalone Redis only; Sentinel and Cluster are not offered over Jedis yet.
 */
public final class JedisBackends {

  private JedisBackends() {}

  /**
   * Connects to the standalone Redis at {@code uri} (for example {@code "redis://127.0.0.1:6379"},
   * with user, password and database taken from it) through a pooled Jedis {@link RedisClient}
   * whose connect and socket timeouts are {@code timeout}. {@link RedisBackend#close()} closes the
   * client.
   *
   * @throws IllegalArgumentException if {@code uri} is null or not a Redis URI, or {@code timeout}
   *     is null, not positive or longer than one hour
   */
  public static RedisBackend standalone(String uri, Duration timeout) {
    URI parsed = parse(uri);
    if (timeout == null
        || timeout.isNegative()
        || timeout.isZero()
        || timeout.compareTo(Duration.ofHours(1)) > 0) {
      throw new IllegalArgumentException(
          "timeout must be positive and at most one hour, was " + timeout);
    }
    int millis = (int) Math.max(1, timeout.toMillis());
    DefaultJedisClientConfig.Builder config =
        DefaultJedisClientConfig.builder()
            .connectionTimeoutMillis(millis)
            .socketTimeoutMillis(millis)
            .user(JedisURIHelper.getUser(parsed))
            .password(JedisURIHelper.getPassword(parsed))
            .ssl(JedisURIHelper.isRedisSSLScheme(parsed));
    if (JedisURIHelper.hasDbIndex(parsed)) {
      config.database(JedisURIHelper.getDBIndex(parsed));
    }
    RedisClient client =
        RedisClient.builder()
            .hostAndPort(JedisURIHelper.getHostAndPort(parsed))
            .clientConfig(config.build())
            .build();
    return RedisBackend.of(new JedisScriptClient(client), client, "jedis standalone " + uri);
  }

  /**
   * Uses the caller's standalone Jedis client (a pooled {@link RedisClient}, say); {@link
   * RedisBackend#close()} leaves it open.
   *
   * @throws IllegalArgumentException if {@code jedis} is null
   */
  public static RedisBackend of(UnifiedJedis jedis) {
    if (jedis == null) {
      throw new IllegalArgumentException("jedis must not be null");
    }
    return RedisBackend.of(new JedisScriptClient(jedis), () -> {}, "jedis client " + jedis);
  }

  private static URI parse(String uri) {
    if (uri == null) {
      throw new IllegalArgumentException("uri must not be null");
    }
    URI parsed;
    try {
      parsed = URI.create(uri);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("uri must be a Redis URI, was \"" + uri + '"', e);
    }
    boolean redisScheme =
        JedisURIHelper.isRedisScheme(parsed) || JedisURIHelper.isRedisSSLScheme(parsed);
    if (!redisScheme || !JedisURIHelper.isValid(parsed)) {
      throw new IllegalArgumentException("uri must be a Redis URI, was \"" + uri + '"');
    }
    return parsed;
  }
}
