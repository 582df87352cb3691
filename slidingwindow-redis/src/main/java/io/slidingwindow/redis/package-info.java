/**
 * Sliding-window rate limiters and windowed counters whose state lives in Redis (standalone,
 * Sentinel or Cluster), shared by every instance of a service; free of any client library.
 *
 * <p>Public types: {@link io.slidingwindow.redis.RedisBackend} (the connection), {@link
 * io.slidingwindow.redis.RedisRateLimiter} (a {@link io.slidingwindow.KeyedRateLimiter} of
 * strings), {@link io.slidingwindow.redis.RedisCounters}, what a backend reports ({@link
 * io.slidingwindow.redis.RedisHealth}, {@link io.slidingwindow.redis.RedisProblem}, {@link
 * io.slidingwindow.redis.RedisCallException}, {@link io.slidingwindow.redis.RedisUris}), and the
 * adapter interface of client libraries, {@link io.slidingwindow.redis.ScriptClient}, which {@code
 * slidingwindow-redis-lettuce} and {@code slidingwindow-redis-jedis} implement. Everything else
 * here is package-private and may change.
 */
package io.slidingwindow.redis;
