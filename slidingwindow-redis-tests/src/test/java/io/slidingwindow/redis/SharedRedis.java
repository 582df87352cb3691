package io.slidingwindow.redis;

import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.util.EnumMap;
import java.util.Map;

/**
 * One standalone server and one backend per client on it, shared by the ITs of this fork that do
 * not kill or pause it, started on first use and closed at JVM exit (the harness kills the process
 * then if nothing closed it before).
 */
final class SharedRedis {

  private SharedRedis() {}

  private static final class Holder {
    static final RedisServerProcess SERVER = RedisServerProcess.start();
    static final Map<Client, RedisBackend> BACKENDS = new EnumMap<>(Client.class);

    static {
      for (Client client : Client.values()) {
        BACKENDS.put(client, client.standalone(SERVER.uri(), Client.GENEROUS));
      }
      Runtime.getRuntime()
          .addShutdownHook(new Thread(() -> BACKENDS.values().forEach(RedisBackend::close)));
    }
  }

  static RedisServerProcess server() {
    return Holder.SERVER;
  }

  static RedisBackend backend(Client client) {
    return Holder.BACKENDS.get(client);
  }
}
