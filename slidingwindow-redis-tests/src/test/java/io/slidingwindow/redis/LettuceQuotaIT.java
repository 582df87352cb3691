package io.slidingwindow.redis;

/** The quota kit on a standalone server through Lettuce. */
class LettuceQuotaIT extends RedisQuotaConformance {

  @Override
  RedisBackend backend() {
    return SharedRedis.backend(Client.LETTUCE);
  }
}
