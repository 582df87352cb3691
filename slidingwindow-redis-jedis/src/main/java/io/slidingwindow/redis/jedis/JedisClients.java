package io.slidingwindow.redis.jedis;

import java.util.Set;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.providers.ClusterConnectionProvider;

/**
 * The Jedis clients that {@link JedisBackends} makes itself, built with the client classes of Jedis
 * 7.2 and later. Kept apart so that {@code JedisBackends} loads on older Jedis too, where the
 * backends over the caller's client or pool ({@link JedisBackends#of}) still work.
 */
final class JedisClients {

  private JedisClients() {}

  /** A pooled client of the standalone Redis at {@code node}. */
  static UnifiedJedis standalone(HostAndPort node, DefaultJedisClientConfig config) {
    return RedisClient.builder().hostAndPort(node).clientConfig(config).build();
  }

  /** A pooled client of the master {@code masterName} behind {@code sentinels}. */
  static UnifiedJedis sentinel(
      String masterName,
      Set<HostAndPort> sentinels,
      DefaultJedisClientConfig config,
      DefaultJedisClientConfig sentinelConfig) {
    return RedisSentinelClient.builder()
        .masterName(masterName)
        .sentinels(sentinels)
        .clientConfig(config)
        .sentinelClientConfig(sentinelConfig)
        .build();
  }

  /**
   * A client of the Cluster that {@code provider} connects to, whose commands go through a {@link
   * ClusterExecutor}, which never sends a command twice after a connection failure or a timeout.
   */
  static UnifiedJedis cluster(
      Set<HostAndPort> nodes, DefaultJedisClientConfig config, ClusterConnectionProvider provider) {
    return RedisClusterClient.builder()
        .nodes(nodes)
        .clientConfig(config)
        .connectionProvider(provider)
        .commandExecutor(new ClusterExecutor(provider))
        .build();
  }
}
