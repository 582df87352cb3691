package io.slidingwindow.redis;

/** The plan kit on a standalone server through Lettuce. */
class LettucePlanIT extends RedisPlanConformance {

  @Override
  RedisBackend backend() {
    return SharedRedis.backend(Client.LETTUCE);
  }
}
