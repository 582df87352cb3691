/**
 * The Redis limiters and counters of {@code slidingwindow-redis} over Lettuce: {@link
 * io.slidingwindow.redis.lettuce.LettuceBackends} makes the {@link
 * io.slidingwindow.redis.RedisBackend} to build them on. The decisions (scripts, keys, retry rules,
 * failure policy) live in {@code slidingwindow-redis}; this package only sends Lettuce's commands.
 * Everything but {@code LettuceBackends} is package-private and may change.
 */
package io.slidingwindow.redis.lettuce;
