package io.slidingwindow.redis;

/** The plan kit on a standalone server through Jedis. */
class JedisPlanIT extends RedisPlanConformance {

  @Override
  RedisBackend backend() {
    return SharedRedis.backend(Client.JEDIS);
  }
}
