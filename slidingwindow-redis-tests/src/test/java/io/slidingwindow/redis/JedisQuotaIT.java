package io.slidingwindow.redis;

/** The quota kit on a standalone server through Jedis. */
class JedisQuotaIT extends RedisQuotaConformance {

  @Override
  RedisBackend backend() {
    return SharedRedis.backend(Client.JEDIS);
  }
}
