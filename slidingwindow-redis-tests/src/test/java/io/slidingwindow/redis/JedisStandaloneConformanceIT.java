package io.slidingwindow.redis;

/** The conformance kit on a standalone server through Jedis. */
class JedisStandaloneConformanceIT extends RedisConformance {

  @Override
  RedisBackend backend() {
    return SharedRedis.backend(Client.JEDIS);
  }
}
