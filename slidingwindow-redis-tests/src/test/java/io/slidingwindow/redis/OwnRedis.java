package io.slidingwindow.redis;

import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.util.EnumMap;
import java.util.Map;

/**
 * A standalone server and a backend per client on it that belong to one test class, so that the
 * script calls counted by {@code INFO commandstats} are that class's alone (tests take differences
 * of the counts, one client at a time).
 */
final class OwnRedis implements AutoCloseable {

  final RedisServerProcess server;
  private final Map<Client, RedisBackend> backends = new EnumMap<>(Client.class);

  OwnRedis() {
    server = RedisServerProcess.start();
    try {
      for (Client client : Client.values()) {
        backends.put(client, client.standalone(server.uri(), Client.GENEROUS));
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  RedisBackend backend(Client client) {
    return backends.get(client);
  }

  /** How many times Redis has run a script (EVALSHA and EVAL) so far. */
  long scriptCalls() {
    return server.commandCalls("evalsha") + server.commandCalls("eval");
  }

  @Override
  public void close() {
    try {
      backends.values().forEach(RedisBackend::close);
    } finally {
      server.close();
    }
  }
}
