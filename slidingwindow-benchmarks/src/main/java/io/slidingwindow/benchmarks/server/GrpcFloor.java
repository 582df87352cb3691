package io.slidingwindow.benchmarks.server;

import com.google.protobuf.Duration;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitRequest;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitResponse;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;

/**
 * BENCHMARK HARNESS: the floors the service is measured against, bare grpc-java servers on the
 * service's own grpc-netty-shaded that answer {@code ShouldRateLimit} with a fixed OK of the
 * service's shape (a status with a current limit and a duration until reset) and decide nothing:
 *
 * <ul>
 *   <li>{@code direct}: calls on the event loop ({@code directExecutor()}), as the service runs;
 *   <li>{@code executor}: calls on grpc-java's default executor (a thread hand-off per call);
 *   <li>{@code lettuce}: on the event loop, each call answered when Redis answers one {@code
 *       EVALSHA} of {@code return 1} through Lettuce's asynchronous API (one script call per gRPC
 *       call, on one connection): the least a call through a Redis client can cost.
 * </ul>
 *
 * <p>Usage: {@code GrpcFloor --port N --mode direct|executor|lettuce [--redis URI]}. Prints {@code
 * floor listening} when it serves, then runs until killed.
 */
public final class GrpcFloor {

  private GrpcFloor() {}

  /** Runs a floor; see the class comment. */
  public static void main(String[] args) throws Exception {
    int port = 0;
    String mode = "direct";
    String redis = null;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--port" -> port = Integer.parseInt(args[i + 1]);
        case "--mode" -> mode = args[i + 1];
        case "--redis" -> redis = args[i + 1];
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    RateLimitResponse ok =
        RateLimitResponse.newBuilder()
            .setOverallCode(RateLimitResponse.Code.OK)
            .addStatuses(
                RateLimitResponse.DescriptorStatus.newBuilder()
                    .setCode(RateLimitResponse.Code.OK)
                    .setCurrentLimit(
                        RateLimitResponse.RateLimit.newBuilder()
                            .setRequestsPerUnit(1_000_000_000)
                            .setUnit(RateLimitResponse.RateLimit.Unit.SECOND))
                    .setLimitRemaining(999_999_999)
                    .setDurationUntilReset(Duration.newBuilder().setNanos(1_000_000)))
            .build();
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port));
    RateLimitServiceGrpc.RateLimitServiceImplBase service;
    switch (mode) {
      case "direct", "executor" -> {
        if (mode.equals("direct")) {
          builder.directExecutor();
        }
        service =
            new RateLimitServiceGrpc.RateLimitServiceImplBase() {
              @Override
              public void shouldRateLimit(
                  RateLimitRequest request, StreamObserver<RateLimitResponse> responses) {
                responses.onNext(ok);
                responses.onCompleted();
              }
            };
      }
      case "lettuce" -> {
        builder.directExecutor();
        RedisAsyncCommands<String, String> commands = RedisClient.create(redis).connect().async();
        String sha = commands.scriptLoad("return 1").get();
        service =
            new RateLimitServiceGrpc.RateLimitServiceImplBase() {
              @Override
              public void shouldRateLimit(
                  RateLimitRequest request, StreamObserver<RateLimitResponse> responses) {
                var unused =
                    commands
                        .<Long>evalsha(sha, ScriptOutputType.INTEGER)
                        .whenComplete(
                            (reply, error) -> {
                              responses.onNext(ok);
                              responses.onCompleted();
                            });
              }
            };
      }
      default -> throw new IllegalArgumentException("mode must be direct, executor or lettuce");
    }
    Server server = builder.addService(service).build().start();
    System.out.println("floor listening on " + server.getPort() + " (" + mode + ")");
    new CountDownLatch(1).await();
  }
}
