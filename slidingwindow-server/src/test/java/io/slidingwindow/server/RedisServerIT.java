package io.slidingwindow.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RedisServerIT {

  private static final String LIMIT =
      "descriptors:\n  - key: client\n    rate_limit: {unit: minute, requests_per_unit: 2}\n";

  @TempDir Path dir;
  private RedisServerProcess redis;
  private final List<RateLimitServer> servers = new ArrayList<>();
  private final List<ManagedChannel> channels = new ArrayList<>();

  @BeforeEach
  void start() throws IOException {
    redis = RedisServerProcess.start();
    Files.writeString(dir.resolve("open.yaml"), "domain: open\n" + LIMIT);
    Files.writeString(
        dir.resolve("closed.yaml"), "domain: closed\nfailure_policy: closed\n" + LIMIT);
    Files.writeString(dir.resolve("local.yaml"), "domain: local\nfailure_policy: local\n" + LIMIT);
  }

  @AfterEach
  void stop() throws InterruptedException {
    for (ManagedChannel channel : channels) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    servers.forEach(RateLimitServer::close);
    redis.close();
  }

  @Test
  void shouldRateLimit_twoInstancesOnOneRedis_shareTheirCounts() throws Exception {
    RateLimitServiceGrpc.RateLimitServiceBlockingStub first = startInstance();
    RateLimitServiceGrpc.RateLimitServiceBlockingStub second = startInstance();

    assertThat(decide(first, "open", "c1")).isEqualTo(Code.OK);
    assertThat(decide(second, "open", "c1")).isEqualTo(Code.OK);
    assertThat(decide(first, "open", "c1")).isEqualTo(Code.OVER_LIMIT);
    assertThat(decide(second, "open", "c1")).isEqualTo(Code.OVER_LIMIT);
    assertThat(decide(second, "open", "c2")).isEqualTo(Code.OK);
    assertThat(redis.cli("--scan", "--pattern", "sw:*")).isNotBlank();
  }

  @Test
  void shouldRateLimit_redisDown_eachDomainsFailurePolicyAnswers() throws Exception {
    RateLimitServiceGrpc.RateLimitServiceBlockingStub stub = startInstance();
    assertThat(decide(stub, "closed", "c")).isEqualTo(Code.OK);

    redis.kill();

    for (int i = 0; i < 4; i++) {
      assertThat(decide(stub, "open", "c")).as("open, call %s", i).isEqualTo(Code.OK);
      assertThat(decide(stub, "closed", "c")).as("closed, call %s", i).isEqualTo(Code.OVER_LIMIT);
    }
    assertThat(decide(stub, "local", "c")).isEqualTo(Code.OK);
    assertThat(decide(stub, "local", "c")).isEqualTo(Code.OK);
    assertThat(decide(stub, "local", "c")).isEqualTo(Code.OVER_LIMIT);
  }

  private RateLimitServiceGrpc.RateLimitServiceBlockingStub startInstance()
      throws IOException, ConfigException {
    RateLimitServer server =
        RateLimitServer.builder()
            .config(dir)
            .grpcPort(0)
            .httpPort(0)
            .redis(redis.uri())
            .reloadInterval(Duration.ZERO)
            .start();
    servers.add(server);
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", server.grpcPort()).usePlaintext().build();
    channels.add(channel);
    return RateLimitServiceGrpc.newBlockingStub(channel);
  }

  private static Code decide(
      RateLimitServiceGrpc.RateLimitServiceBlockingStub stub, String domain, String client) {
    return stub.withDeadlineAfter(10, TimeUnit.SECONDS)
        .shouldRateLimit(
            EnvoyGrpcIT.request("client", client).toBuilder().setDomain(domain).build())
        .getOverallCode();
  }
}
