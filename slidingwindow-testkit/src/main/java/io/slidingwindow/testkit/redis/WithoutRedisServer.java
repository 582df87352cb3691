package io.slidingwindow.testkit.redis;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks an integration test class that starts no Redis or Valkey server, so that the build runs it
 * once, in the Redis pass, and leaves it out of the Valkey pass, where it would only repeat itself.
 * The Valkey pass of every module excludes the tag {@value #TAG}.
 *
 * <p>The mark is checked: {@link RedisServerProcess}, {@link RedisClusterProcesses} and {@link
 * RedisSentinelProcesses} refuse to start a server while a class so marked runs (from its {@code
 * BeforeAll} to its {@code AfterAll}, on any thread, see {@link MarkedClassGuard}) and when such a
 * class, or one nested in it, is on the calling thread's stack. So a test that comes to need a
 * server fails in the Redis pass until the mark is removed, instead of silently skipping Valkey. A
 * class without the mark runs in both passes, which is never wrong, only slower. The build runs one
 * test class at a time in each test JVM.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Tag(WithoutRedisServer.TAG)
@ExtendWith(MarkedClassGuard.class)
public @interface WithoutRedisServer {

  /** The JUnit tag the mark carries, excluded by the build's Valkey pass. */
  String TAG = "without-redis-server";
}
