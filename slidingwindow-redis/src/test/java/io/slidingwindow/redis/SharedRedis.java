package io.slidingwindow.redis;

import io.slidingwindow.testkit.redis.RedisServerProcess;

/**
 * One standalone redis-server and backend shared by the ITs of this module that do not kill it,
 * started on first use. The harness kills the process at JVM exit if nothing closed it before.
 */
final class SharedRedis {

  private SharedRedis() {}

  private static final class Holder {
    static final RedisServerProcess SERVER = RedisServerProcess.start();
    static final RedisBackend BACKEND = RedisBackend.standalone(SERVER.uri());

    static {
      Runtime.getRuntime().addShutdownHook(new Thread(BACKEND::close));
    }
  }

  static RedisServerProcess server() {
    return Holder.SERVER;
  }

  static RedisBackend backend() {
    return Holder.BACKEND;
  }
}
