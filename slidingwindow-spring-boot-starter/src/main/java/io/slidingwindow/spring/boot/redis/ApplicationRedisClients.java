package io.slidingwindow.spring.boot.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.redis.jedis.JedisBackends;
import io.slidingwindow.redis.lettuce.LettuceBackends;
import java.time.Duration;
import java.util.List;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import redis.clients.jedis.UnifiedJedis;

/**
 * The starter's uses of each client adapter, one nested class per client library, each loaded only
 * when its library is the one in use: backends on the deployment that {@code slidingwindow.redis}
 * names (a client of the limiter's own) and on the application's Spring Data Redis connection
 * factory.
 */
final class ApplicationRedisClients {

  private ApplicationRedisClients() {}

  /** Through {@code slidingwindow-redis-lettuce}. */
  static final class Lettuce {

    private Lettuce() {}

    /** A client of the limiter's own on the deployment of exactly one of the arguments. */
    static RedisBackend deployment(
        String uri, List<String> clusterNodes, String sentinelMaster, List<String> sentinelNodes) {
      if (uri != null) {
        return LettuceBackends.standalone(uri);
      }
      if (!clusterNodes.isEmpty()) {
        return LettuceBackends.cluster(clusterNodes);
      }
      return LettuceBackends.sentinel(sentinelNodes, sentinelMaster);
    }

    static String describe(RedisConnectionFactory connections) {
      LettuceConnectionFactory factory = (LettuceConnectionFactory) connections;
      return ApplicationRedis.describe(
          factory.getStandaloneConfiguration(),
          factory.getSentinelConfiguration(),
          factory.getClusterConfiguration(),
          factory.getDatabase(),
          factory.isUseSsl());
    }

    /**
     * A backend on one connection of the factory's own Lettuce client ({@code getNativeClient()}: a
     * {@code RedisClient} for standalone and Sentinel, a {@code RedisClusterClient} for Cluster),
     * starting the factory first if it has not started yet.
     */
    static RedisBackend connect(RedisConnectionFactory connections) {
      LettuceConnectionFactory factory = (LettuceConnectionFactory) connections;
      if (factory.getNativeClient() == null) {
        factory.start();
      }
      AbstractRedisClient client = factory.getRequiredNativeClient();
      if (client instanceof RedisClusterClient clusterClient) {
        return LettuceBackends.of(clusterClient);
      }
      return LettuceBackends.of((RedisClient) client);
    }
  }

  /** Through {@code slidingwindow-redis-jedis}. */
  static final class Jedis {

    private Jedis() {}

    /**
     * A client of the limiter's own on the deployment of exactly one of the arguments, whose
     * connect and socket timeouts are {@code timeout}.
     */
    static RedisBackend deployment(
        String uri,
        List<String> clusterNodes,
        String sentinelMaster,
        List<String> sentinelNodes,
        Duration timeout) {
      if (uri != null) {
        return JedisBackends.standalone(uri, timeout);
      }
      if (!clusterNodes.isEmpty()) {
        return JedisBackends.cluster(clusterNodes, timeout);
      }
      return JedisBackends.sentinel(sentinelNodes, sentinelMaster, timeout);
    }

    static String describe(RedisConnectionFactory connections) {
      JedisConnectionFactory factory = (JedisConnectionFactory) connections;
      return ApplicationRedis.describe(
          factory.getStandaloneConfiguration(),
          factory.getSentinelConfiguration(),
          factory.getClusterConfiguration(),
          factory.getDatabase(),
          factory.isUseSsl());
    }

    /**
     * A backend on the factory's own connections, starting the factory first if it has not started
     * yet. Standalone and Sentinel: each call borrows one of the factory's pooled Jedis connections
     * and gives it back (one is borrowed here first, so that a server that cannot be reached or
     * refuses the credentials stops the start). Cluster: the factory's {@code JedisCluster}, which
     * sends a command again after a connection failure or a timeout, up to {@code
     * spring.data.redis.cluster.max-redirects} times; such a call may then take permits twice,
     * never grant more.
     */
    static RedisBackend connect(RedisConnectionFactory connections, String description) {
      JedisConnectionFactory factory = (JedisConnectionFactory) connections;
      if (!factory.isRunning()) {
        factory.start();
      }
      if (factory.isRedisClusterAware()) {
        // Not closed: closing a cluster connection of the factory's leaves its JedisCluster open,
        // and the limiter uses that client for as long as the application runs.
        UnifiedJedis cluster = (UnifiedJedis) factory.getClusterConnection().getNativeConnection();
        return JedisBackends.of(cluster);
      }
      try (RedisConnection first = factory.getConnection()) {
        first.getNativeConnection(); // opened: reachable, credentials accepted
      }
      return JedisBackends.of(
          () -> (redis.clients.jedis.Jedis) factory.getConnection().getNativeConnection(),
          "the application's spring.data.redis connection (" + description + ")");
    }
  }
}
