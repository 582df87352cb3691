package io.slidingwindow.server;

import static io.slidingwindow.server.RawSockets.DECIDE;
import static io.slidingwindow.server.RawSockets.readResponse;
import static io.slidingwindow.server.RawSockets.request;
import static io.slidingwindow.server.RawSockets.send;

import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.UnaryOperator;

/**
 * A service under test, spoken to over raw sockets, for one client of 1000 requests a minute: in
 * memory, or on a Redis of its own. Closing it closes the sockets, the service and its Redis.
 */
final class ServiceOnSockets implements AutoCloseable {

  private final RawSockets sockets = new RawSockets();
  private RedisServerProcess redis;
  private RateLimitServer server;

  /** Starts the service in {@code dir}, {@code settings} applied to its builder. */
  void start(Path dir, UnaryOperator<RateLimitServer.Builder> settings) throws Exception {
    Path config = TestServers.clientConfig(dir, "minute", 1000);
    server = settings.apply(TestServers.onLoopback(config)).start();
  }

  /**
   * Starts the service on a Redis of its own, whose commands wait as long as they must, and decides
   * once (which connects and loads the script): returns that answer.
   */
  String startOnRedis(Path dir, UnaryOperator<RateLimitServer.Builder> settings) throws Exception {
    startOnRedisUntried(dir, settings);
    return decideOnce();
  }

  /**
   * Starts the service as {@link #startOnRedis} does, without deciding (for a port this class does
   * not speak, such as one with TLS).
   */
  void startOnRedisUntried(Path dir, UnaryOperator<RateLimitServer.Builder> settings)
      throws Exception {
    redis = RedisServerProcess.start();
    start(
        dir, b -> settings.apply(b.redis(redis.uri()).redisCommandTimeout(Duration.ofSeconds(20))));
  }

  /** The Redis of {@link #startOnRedis}. */
  RedisServerProcess redis() {
    return redis;
  }

  /** A new connection to the service's HTTP port. */
  Socket open() throws IOException {
    return sockets.open(server.httpPort());
  }

  /** The answer to one decision on a new connection. */
  String decideOnce() throws IOException {
    Socket socket = open();
    send(socket, request(DECIDE));
    return readResponse(socket);
  }

  /** The admin port's {@code /metrics}, its body read until the port closes the connection. */
  String metrics() throws IOException {
    Socket socket = sockets.open(server.adminPort());
    send(socket, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    return RawSockets.readUntilClosed(socket, Duration.ofSeconds(5));
  }

  @Override
  public void close() throws IOException {
    sockets.close();
    if (server != null) {
      server.close();
    }
    if (redis != null) {
      redis.close();
    }
  }
}
