package io.slidingwindow.redis;

import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.time.Duration;

/**
 * A standalone server of one test's own, which it may kill, restart, pause or flush, and a backend
 * of one client on it.
 */
final class OwnServer implements AutoCloseable {

  final RedisServerProcess server;
  final RedisBackend backend;

  /** {@code timeout}: the Jedis client's socket timeout (see {@link Client}). */
  OwnServer(Client client, Duration timeout) {
    server = RedisServerProcess.start();
    try {
      backend = client.standalone(server.uri(), timeout);
    } catch (RuntimeException e) {
      server.close();
      throw e;
    }
  }

  @Override
  public void close() {
    try {
      backend.close();
    } finally {
      server.close();
    }
  }
}
