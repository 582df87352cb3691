/**
 * Real Redis processes for integration tests: a standalone server ({@link
 * io.slidingwindow.testkit.redis.RedisServerProcess}), a Cluster ({@link
 * io.slidingwindow.testkit.redis.RedisClusterProcesses}) and a Sentinel group ({@link
 * io.slidingwindow.testkit.redis.RedisSentinelProcesses}), started on free ports of {@code
 * 127.0.0.1} from the installed {@code redis-server} and administered with {@code redis-cli}; no
 * Redis client library and no mocks.
 *
 * <p>Every wait is bounded and every process is killed by {@code close()}, on failure paths too,
 * with a JVM shutdown hook for leftovers. Needs {@code redis-server} and {@code redis-cli} on the
 * {@code PATH} ({@code apt-get install -y redis-server redis-tools}).
 *
 * <p>For the project's own tests: not a supported API, and it may change without notice in any
 * release.
 */
package io.slidingwindow.testkit.redis;
