package io.slidingwindow.server;

import java.nio.file.Path;
import java.time.Duration;

/** Servers for tests: on the loopback address, every port free, no reloading unless asked. */
public final class TestServers {

  private TestServers() {}

  /** A builder of a service with {@code config}, its three ports free ones on 127.0.0.1. */
  public static RateLimitServer.Builder onLoopback(Path config) {
    return RateLimitServer.builder()
        .config(config)
        .host("127.0.0.1")
        .grpcPort(0)
        .httpPort(0)
        .adminPort(0)
        .reloadInterval(Duration.ZERO);
  }
}
