/**
 * The Redis harness of {@code scripts/bench-redis.sh}: the limiter on Redis beside Bucket4j,
 * Redisson, the sorted-set log script and a bare script call, under one load, with its report,
 * chart and memory figures. Never published.
 */
package io.slidingwindow.benchmarks.redis;
