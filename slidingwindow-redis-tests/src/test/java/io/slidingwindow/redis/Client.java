package io.slidingwindow.redis;

import io.slidingwindow.redis.jedis.JedisBackends;
import io.slidingwindow.redis.lettuce.LettuceBackends;
import java.time.Duration;
import java.util.List;

/**
 * The client libraries every scenario of this suite runs on, each through its adapter's public
 * factories. {@code timeout} is the Jedis clients' connect and socket timeout, which bounds how
 * long a blocking call waits (give a limiter the same command timeout); Lettuce calls are bounded
 * by the limiter's command timeout alone, so the Lettuce factories take none.
 */
enum Client {
  LETTUCE {
    @Override
    RedisBackend standalone(String uri, Duration timeout) {
      return LettuceBackends.standalone(uri);
    }

    @Override
    RedisBackend sentinel(List<String> sentinelUris, String master, Duration timeout) {
      return LettuceBackends.sentinel(sentinelUris, master);
    }

    @Override
    RedisBackend cluster(List<String> seedUris, Duration timeout) {
      return LettuceBackends.cluster(seedUris);
    }
  },
  JEDIS {
    @Override
    RedisBackend standalone(String uri, Duration timeout) {
      return JedisBackends.standalone(uri, timeout);
    }

    @Override
    RedisBackend sentinel(List<String> sentinelUris, String master, Duration timeout) {
      return JedisBackends.sentinel(sentinelUris, master, timeout);
    }

    @Override
    RedisBackend cluster(List<String> seedUris, Duration timeout) {
      return JedisBackends.cluster(seedUris, timeout);
    }
  };

  /** A generous timeout for scenarios in which Redis must answer every call. */
  static final Duration GENEROUS = Duration.ofSeconds(5);

  /** A backend on the standalone Redis at {@code uri}. */
  abstract RedisBackend standalone(String uri, Duration timeout);

  /** A backend on the master named {@code master} behind the given Sentinels. */
  abstract RedisBackend sentinel(List<String> sentinelUris, String master, Duration timeout);

  /** A backend on the Redis Cluster reached through any of {@code seedUris}. */
  abstract RedisBackend cluster(List<String> seedUris, Duration timeout);

  /** Whether calls wait on the caller's thread, also on the asynchronous paths (Jedis). */
  boolean blocks() {
    return this == JEDIS;
  }
}
