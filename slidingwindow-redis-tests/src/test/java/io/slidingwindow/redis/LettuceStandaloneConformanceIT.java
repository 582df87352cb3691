package io.slidingwindow.redis;

/** The conformance kit on a standalone server through Lettuce. */
class LettuceStandaloneConformanceIT extends RedisConformance {

  @Override
  RedisBackend backend() {
    return SharedRedis.backend(Client.LETTUCE);
  }
}
