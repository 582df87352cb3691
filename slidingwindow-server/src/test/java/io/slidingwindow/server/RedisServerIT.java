package io.slidingwindow.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.slidingwindow.testkit.redis.RedisClusterProcesses;
import io.slidingwindow.testkit.redis.RedisSentinelProcesses;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
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
    Files.writeString(dir.resolve("open.yaml"), "domain: open\nfailure_policy: allow\n" + LIMIT);
    Files.writeString(
        dir.resolve("closed.yaml"), "domain: closed\nfailure_policy: refuse\n" + LIMIT);
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
    // The first call connects and loads the script: on a busy machine that can outlast the 50 ms
    // default, and the fail-closed domain would answer OVER_LIMIT. Once Redis is gone, calls fail
    // at once (commands are rejected while disconnected), so the longer bound costs nothing.
    RateLimitServiceGrpc.RateLimitServiceBlockingStub stub =
        startInstance(b -> b.redis(redis.uri()).redisCommandTimeout(Duration.ofSeconds(5)));
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

  @Test
  void shouldRateLimit_commandTimeoutLongerThanAStall_waitsForRedis() throws Exception {
    RateLimitServiceGrpc.RateLimitServiceBlockingStub patient =
        startInstance(b -> b.redis(redis.uri()).redisCommandTimeout(Duration.ofSeconds(8)));
    RateLimitServiceGrpc.RateLimitServiceBlockingStub hasty =
        startInstance(b -> b.redis(redis.uri()).redisCommandTimeout(Duration.ofMillis(500)));
    assertThat(decide(patient, "closed", "warm")).isEqualTo(Code.OK); // loads the script
    assertThat(decide(hasty, "closed", "warm-hasty")).isEqualTo(Code.OK);

    // Scripts wait while writes are paused; longer than the Redis client's own 2 s default.
    redis.cli("CLIENT", "PAUSE", "2500", "WRITE");
    // Fail-closed answers OVER_LIMIT only when Redis did not answer in time.
    assertThat(decide(hasty, "closed", "a")).isEqualTo(Code.OVER_LIMIT);
    assertThat(decide(patient, "closed", "b")).isEqualTo(Code.OK);
  }

  @Test
  void shouldRateLimit_circuitBreakerSet_opensAfterItsFailuresForItsTime() throws Exception {
    // Short beside the pause below, long enough that a loaded machine still answers in time.
    Duration timeout = Duration.ofMillis(500);
    RateLimitServiceGrpc.RateLimitServiceBlockingStub warm =
        startInstance(b -> b.redis(redis.uri()).redisCommandTimeout(Duration.ofSeconds(5)));
    RateLimitServiceGrpc.RateLimitServiceBlockingStub longOpen =
        startInstance(
            b ->
                b.redis(redis.uri())
                    .redisCommandTimeout(timeout)
                    .redisCircuitBreaker(2, Duration.ofHours(1)));
    RateLimitServiceGrpc.RateLimitServiceBlockingStub shortOpen =
        startInstance(
            b ->
                b.redis(redis.uri())
                    .redisCommandTimeout(timeout)
                    .redisCircuitBreaker(2, Duration.ofMillis(1)));
    RateLimitServiceGrpc.RateLimitServiceBlockingStub defaults =
        startInstance(b -> b.redis(redis.uri()).redisCommandTimeout(timeout));
    List<RateLimitServiceGrpc.RateLimitServiceBlockingStub> stubs =
        List.of(longOpen, shortOpen, defaults);
    assertThat(decide(warm, "closed", "warm")).isEqualTo(Code.OK); // loads the script
    for (int i = 0; i < stubs.size(); i++) {
      // Each client id may pass twice a minute; a success also clears earlier failures.
      assertThat(decide(stubs.get(i), "closed", "warm-" + i)).isEqualTo(Code.OK);
    }

    redis.cli("CLIENT", "PAUSE", "10000", "WRITE");
    for (int i = 0; i < 2; i++) {
      for (RateLimitServiceGrpc.RateLimitServiceBlockingStub stub : stubs) {
        assertThat(decide(stub, "closed", "c" + i)).isEqualTo(Code.OVER_LIMIT);
      }
    }
    redis.cli("CLIENT", "UNPAUSE");

    // Two failures in a row opened both set breakers: the one open for an hour still answers by
    // the policy, the one open for 1 ms lets a call try Redis again. The default needs three.
    assertThat(decide(longOpen, "closed", "after-0")).isEqualTo(Code.OVER_LIMIT);
    assertThat(decide(shortOpen, "closed", "after-1")).isEqualTo(Code.OK);
    assertThat(decide(defaults, "closed", "after-2")).isEqualTo(Code.OK);
  }

  @Test
  void shouldRateLimit_sentinel_instancesShareCountsAndFollowAFailover() throws Exception {
    try (RedisSentinelProcesses group = RedisSentinelProcesses.start("counts", 1, 3)) {
      RateLimitServiceGrpc.RateLimitServiceBlockingStub first =
          startInstance(
              b ->
                  b.redisSentinel(group.sentinelUris(), group.masterName(), null, null, null)
                      .redisCommandTimeout(Duration.ofSeconds(1)));
      RateLimitServiceGrpc.RateLimitServiceBlockingStub second =
          startInstance(
              b ->
                  b.redisSentinel(group.sentinelUris(), group.masterName(), null, null, null)
                      .redisCommandTimeout(Duration.ofSeconds(1)));
      assertThat(decide(first, "closed", "c1")).isEqualTo(Code.OK);
      assertThat(decide(second, "closed", "c1")).isEqualTo(Code.OK);
      assertThat(decide(first, "closed", "c1")).isEqualTo(Code.OVER_LIMIT);
      assertThat(group.master().cli("--scan", "--pattern", "sw:*")).isNotBlank();

      group.killMaster();
      group.awaitFailover();
      // Fail-closed answers OK only from Redis: the service reached the new master.
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(() -> assertThat(decide(second, "closed", "c2")).isEqualTo(Code.OK));
    }
  }

  @Test
  void shouldRateLimit_cluster_instancesShareCounts() throws Exception {
    try (RedisClusterProcesses cluster = RedisClusterProcesses.start(3, 0)) {
      RateLimitServiceGrpc.RateLimitServiceBlockingStub first =
          startInstance(
              b ->
                  b.redisCluster(cluster.seedUris().subList(0, 1))
                      .redisCommandTimeout(Duration.ofSeconds(2)));
      RateLimitServiceGrpc.RateLimitServiceBlockingStub second =
          startInstance(
              b ->
                  b.redisCluster(cluster.seedUris().subList(1, 3))
                      .redisCommandTimeout(Duration.ofSeconds(2)));
      for (int client = 0; client < 6; client++) {
        String id = "c" + client;
        assertThat(decide(first, "closed", id)).as(id).isEqualTo(Code.OK);
        assertThat(decide(second, "closed", id)).as(id).isEqualTo(Code.OK);
        assertThat(decide(second, "closed", id)).as(id).isEqualTo(Code.OVER_LIMIT);
      }
      long keys =
          cluster.masters().stream()
              .mapToLong(node -> Long.parseLong(node.cli("DBSIZE")))
              .filter(n -> n > 0)
              .count();
      assertThat(keys).as("masters holding counts").isGreaterThan(1);
    }
  }

  private RateLimitServiceGrpc.RateLimitServiceBlockingStub startInstance()
      throws IOException, ConfigException {
    return startInstance(b -> b.redis(redis.uri()));
  }

  private RateLimitServiceGrpc.RateLimitServiceBlockingStub startInstance(
      Consumer<RateLimitServer.Builder> store) throws IOException, ConfigException {
    RateLimitServer.Builder builder =
        RateLimitServer.builder()
            .config(dir)
            .host("127.0.0.1")
            .grpcPort(0)
            .httpPort(0)
            .adminPort(0)
            .reloadInterval(Duration.ZERO);
    store.accept(builder);
    RateLimitServer server = builder.start();
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
