/**
 * Sliding-window rate limiters and windowed counters whose state lives in Redis (standalone,
 * Sentinel or Cluster, through Lettuce), shared by every instance of a service.
 *
 * <p>Public types: {@link io.slidingwindow.redis.RedisBackend} (the connection), {@link
 * io.slidingwindow.redis.RedisRateLimiter} (a {@link io.slidingwindow.KeyedRateLimiter} of
 * strings), {@link io.slidingwindow.redis.RedisCounters} and {@link
 * io.slidingwindow.redis.FailurePolicy}; for adapters of other client libraries, {@link
 * io.slidingwindow.redis.ScriptClient}. Everything else here is package-private and may change.
 */
package io.slidingwindow.redis;
