package io.slidingwindow.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Readiness follows Redis: with redis-server stopped (SIGSTOP), gRPC health and {@code
 * /healthcheck} say NOT_SERVING and 503 within 5 s, decisions are answered by the failure policy
 * and counted as backend errors, liveness stays SERVING; after SIGCONT, ready again within 10 s.
 */
class ReadinessIT {

  @TempDir Path dir;
  private RedisServerProcess redis;
  private String redisPid;
  private RateLimitServer server;
  private ManagedChannel channel;
  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeEach
  void start() throws Exception {
    redis = RedisServerProcess.start();
    redisPid =
        redis
            .cli("INFO", "server")
            .lines()
            .filter(line -> line.startsWith("process_id:"))
            .map(line -> line.substring("process_id:".length()).trim())
            .findFirst()
            .orElseThrow();
    Path config = dir.resolve("api.yaml");
    Files.writeString(
        config,
        """
        domain: api
        failure_policy: refuse
        descriptors:
          - key: client
            rate_limit: {unit: minute, requests_per_unit: 100}
        """);
    server =
        TestServers.onLoopback(config)
            .redis(redis.uri())
            .redisCommandTimeout(Duration.ofMillis(200))
            .start();
    channel = NettyChannelBuilder.forAddress("127.0.0.1", server.grpcPort()).usePlaintext().build();
  }

  @AfterEach
  void stop() throws Exception {
    signal("CONT");
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    server.close();
    redis.close();
  }

  @Test
  void health_redisStoppedThenContinued_notServingWithin5sAndBackWithin10s() throws Exception {
    assertThat(health("")).isEqualTo(ServingStatus.SERVING);
    assertThat(decide()).isEqualTo(Code.OK);

    signal("STOP");
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () -> {
              assertThat(health("")).isEqualTo(ServingStatus.NOT_SERVING);
              assertThat(health("envoy.service.ratelimit.v3.RateLimitService"))
                  .isEqualTo(ServingStatus.NOT_SERVING);
              assertThat(get(server.httpPort(), "/healthcheck").statusCode()).isEqualTo(503);
            });
    assertThat(health("liveness")).isEqualTo(ServingStatus.SERVING);
    assertThat(get(server.httpPort(), "/livez").statusCode()).isEqualTo(200);
    assertThat(decide()).as("refused by the failure policy").isEqualTo(Code.OVER_LIMIT);
    String metrics = get(server.adminPort(), "/metrics").body();
    assertThat(metrics).contains("slidingwindow_server_ready 0.0");
    assertThat(backendErrors(metrics)).isPositive();
    assertThat(get(server.adminPort(), "/v1/stats").body())
        .contains("\"backend\":\"redis\"", "\"state\":\"down\"", "\"ready\":false");

    signal("CONT");
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              assertThat(health("")).isEqualTo(ServingStatus.SERVING);
              assertThat(get(server.httpPort(), "/healthcheck").statusCode()).isEqualTo(200);
            });
    assertThat(decide()).isEqualTo(Code.OK);
  }

  private static double backendErrors(String metrics) {
    return metrics
        .lines()
        .filter(line -> line.startsWith("slidingwindow_server_backend_errors_total{"))
        .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
        .sum();
  }

  private void signal(String name) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + name, redisPid).inheritIO().start();
    assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
  }

  private ServingStatus health(String service) {
    return HealthGrpc.newBlockingStub(channel)
        .withDeadlineAfter(5, TimeUnit.SECONDS)
        .check(HealthCheckRequest.newBuilder().setService(service).build())
        .getStatus();
  }

  private Code decide() {
    return RateLimitServiceGrpc.newBlockingStub(channel)
        .withDeadlineAfter(10, TimeUnit.SECONDS)
        .shouldRateLimit(EnvoyGrpcIT.request("client", "c"))
        .getOverallCode();
  }

  private HttpResponse<String> get(int port, String path) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(5))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
