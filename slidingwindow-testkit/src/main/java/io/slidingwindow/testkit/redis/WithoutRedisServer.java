package io.slidingwindow.testkit.redis;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Marks an integration test class that starts no Redis or Valkey server, so that the build runs it
 * once, in the Redis pass, and leaves it out of the Valkey pass, where it would only repeat itself.
 * The Valkey pass of every module excludes the tag {@value #TAG}.
 *
 * <p>The mark is checked: {@link RedisServerProcess}, {@link RedisClusterProcesses} and {@link
 * RedisSentinelProcesses} refuse to start a server when a class so marked (or a class nested in
 * one) is on the calling thread's stack, so a test that comes to need a server fails in the Redis
 * pass until the mark is removed, instead of silently skipping Valkey. A class without the mark
 * runs in both passes, which is never wrong, only slower.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Tag(WithoutRedisServer.TAG)
public @interface WithoutRedisServer {

  /** The JUnit tag the mark carries, excluded by the build's Valkey pass. */
  String TAG = "without-redis-server";
}
