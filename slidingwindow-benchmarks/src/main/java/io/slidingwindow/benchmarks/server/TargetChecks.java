package io.slidingwindow.benchmarks.server;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.slidingwindow.benchmarks.server.ServiceBench.Target;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitRequest;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitResponse;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.util.concurrent.TimeUnit;

/**
 * BENCHMARK HARNESS support for {@link ServiceBench}: one call to a target to check its answer
 * before it is measured, and the service's count of the failure policy's answers.
 */
final class TargetChecks {

  private TargetChecks() {}

  /** Calls the target once and checks its answer, so that a broken target is not measured. */
  static void check(Target target) throws Exception {
    if (!target.grpc()) {
      java.net.http.HttpResponse<String> answer =
          java.net.http.HttpClient.newHttpClient()
              .send(
                  java.net.http.HttpRequest.newBuilder(
                          java.net.URI.create(
                              "http://127.0.0.1:" + target.server().port() + target.path()))
                      .timeout(java.time.Duration.ofSeconds(10))
                      .header("Content-Type", "application/json")
                      .POST(java.net.http.HttpRequest.BodyPublishers.ofFile(target.data()))
                      .build(),
                  java.net.http.HttpResponse.BodyHandlers.ofString());
      if (answer.statusCode() != 200) {
        throw new IllegalStateException(
            target.name() + " answered " + answer.statusCode() + ": " + answer.body());
      }
      return;
    }
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", target.server().port()).usePlaintext().build();
    try {
      RateLimitRequest request =
          RateLimitRequest.parseFrom(
              java.util.Arrays.copyOfRange(
                  Files.readAllBytes(target.data()), 5, (int) Files.size(target.data())));
      RateLimitResponse.Code expected =
          target.name().contains("refused")
              ? RateLimitResponse.Code.OVER_LIMIT
              : RateLimitResponse.Code.OK;
      for (int i = 0; i < 2; i++) { // the second call of a refused value is over its limit
        RateLimitResponse.Code code =
            RateLimitServiceGrpc.newBlockingStub(channel)
                .withDeadlineAfter(10, TimeUnit.SECONDS)
                .shouldRateLimit(request)
                .getOverallCode();
        if (i == 1 && code != expected) {
          throw new IllegalStateException(target.name() + " answered " + code);
        }
      }
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  /** The service's backend errors counter, read from its admin port. */
  static String backendErrors(int admin) throws IOException {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), admin)) {
      socket
          .getOutputStream()
          .write(
              "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                  .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      String text =
          new String(
              socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      return text.lines()
          .filter(line -> line.startsWith("slidingwindow_server_backend_errors_total{"))
          .map(line -> line.substring(line.lastIndexOf(' ') + 1))
          .findFirst()
          .orElse("?");
    }
  }
}
