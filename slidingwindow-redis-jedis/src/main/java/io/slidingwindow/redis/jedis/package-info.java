/**
 * The Redis limiters and counters of {@code slidingwindow-redis} over Jedis: {@link
 * io.slidingwindow.redis.jedis.JedisBackends} makes the {@link io.slidingwindow.redis.RedisBackend}
 * to build them on. Everything else here is package-private and may change.
 */
package io.slidingwindow.redis.jedis;
