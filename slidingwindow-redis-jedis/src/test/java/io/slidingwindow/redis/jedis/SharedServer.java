package io.slidingwindow.redis.jedis;

import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.time.Duration;

/**
 * One standalone redis-server and a Jedis backend on it, shared by this module's ITs and started on
 * first use. The harness kills the process at JVM exit if nothing closed it before.
 */
final class SharedServer {

  private SharedServer() {}

  private static final class Holder {
    static final RedisServerProcess SERVER = RedisServerProcess.start();
    static final RedisBackend JEDIS = JedisBackends.standalone(SERVER.uri(), Duration.ofSeconds(5));

    static {
      Runtime.getRuntime().addShutdownHook(new Thread(JEDIS::close));
    }
  }

  static RedisServerProcess server() {
    return Holder.SERVER;
  }

  static RedisBackend jedis() {
    return Holder.JEDIS;
  }
}
