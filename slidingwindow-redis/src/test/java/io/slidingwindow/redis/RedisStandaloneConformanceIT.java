package io.slidingwindow.redis;

/** The core conformance kit against a standalone redis-server, in client-time mode. */
class RedisStandaloneConformanceIT extends RedisConformance {

  @Override
  RedisBackend backend() {
    return SharedRedis.backend();
  }
}
