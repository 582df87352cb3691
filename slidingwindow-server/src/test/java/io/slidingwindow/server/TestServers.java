package io.slidingwindow.server;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
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

  /**
   * Writes {@code api.yaml} in {@code dir}: domain {@code api}, whose one descriptor, key {@code
   * client}, allows {@code requests} per {@code unit} ({@code second}, {@code minute}...).
   */
  public static Path clientConfig(Path dir, String unit, int requests) throws IOException {
    Path config = dir.resolve("api.yaml");
    Files.writeString(
        config,
        """
        domain: api
        descriptors:
          - key: client
            rate_limit: {unit: %s, requests_per_unit: %d}
        """
            .formatted(unit, requests));
    return config;
  }

  /**
   * A request of {@code method} to {@code path} on 127.0.0.1:{@code port}, within 10 seconds, with
   * {@code body} if not null, and a Content-Type of {@code type} if not null.
   */
  public static HttpRequest.Builder request(
      int port, String method, String path, String body, String type) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (type != null) {
      request.header("Content-Type", type);
    }
    return request;
  }

  /** {@link #request} with {@code body}, if not null, as JSON. */
  public static HttpRequest.Builder jsonRequest(int port, String method, String path, String body) {
    return request(port, method, path, body, body == null ? null : "application/json");
  }

  /**
   * Waits (a minute at most) for the service that {@code process} runs to write its start line to
   * {@code output}; fails at once, quoting the output, if the process ends first.
   */
  public static void awaitStartLine(Process process, Path output) {
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              if (!process.isAlive()) {
                throw new AssertionError("the service exited: " + Files.readString(output));
              }
              return Files.readString(output).contains("Rate limit service: gRPC on");
            });
  }
}
