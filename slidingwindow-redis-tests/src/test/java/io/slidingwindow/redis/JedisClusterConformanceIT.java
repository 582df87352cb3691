package io.slidingwindow.redis;

/** The conformance kit on a 3-master, 3-replica Cluster through Jedis. */
class JedisClusterConformanceIT extends RedisConformance {

  @Override
  RedisBackend backend() {
    return SharedCluster.backend(Client.JEDIS);
  }
}
