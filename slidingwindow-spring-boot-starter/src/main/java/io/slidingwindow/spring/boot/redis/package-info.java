/**
 * The starter's Redis wiring: {@link
 * io.slidingwindow.spring.boot.redis.SlidingWindowRedisAutoConfiguration} keeps every rule's
 * windows in Redis when {@code slidingwindow.redis.*} ({@link
 * io.slidingwindow.spring.boot.redis.SlidingWindowRedisProperties}) names a deployment or the
 * application's Spring Data Redis connection is there to use, over Lettuce or Jedis; {@link
 * io.slidingwindow.spring.boot.redis.SlidingWindowBackendReportAutoConfiguration} says at start-up
 * where the limits are kept. The classes that are not public are the configurations' helpers and
 * may change.
 */
package io.slidingwindow.spring.boot.redis;
