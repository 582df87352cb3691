package io.slidingwindow.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.slidingwindow.server.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitRequest;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.slidingwindow.testkit.redis.RedisSentinelProcesses;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The service on a Sentinel group whose master requires a password ({@code requirepass}) and an ACL
 * user, and whose Sentinel requires a password of its own: real {@code redis-server} processes,
 * credentials set with {@code CONFIG SET}, {@code ACL SETUSER} and {@code SENTINEL SET} once the
 * group has formed.
 */
class SentinelCredentialsIT {

  private static final String MASTER = "secured";
  private static final String DEFAULT_PASSWORD = "default-secret-1";
  private static final String USER = "limiter";
  private static final String USER_PASSWORD = "user-secret-2";
  private static final String SENTINEL_PASSWORD = "sentinel-secret-3";

  private static RedisSentinelProcesses group;

  /** The master; the group can no longer ask its Sentinel once that requires a password. */
  private static RedisServerProcess master;

  @TempDir Path dir;
  private final List<RateLimitServer> servers = new ArrayList<>();
  private final List<ManagedChannel> channels = new ArrayList<>();

  @BeforeAll
  static void secureTheGroup() {
    group = RedisSentinelProcesses.start(MASTER, 0, 1);
    master = group.master();
    RedisServerProcess sentinel = group.sentinels().get(0);
    assertThat(master.cli("ACL", "SETUSER", USER, "on", ">" + USER_PASSWORD, "~*", "+@all"))
        .isEqualTo("OK");
    assertThat(sentinel.cli("SENTINEL", "SET", MASTER, "auth-pass", DEFAULT_PASSWORD))
        .isEqualTo("OK");
    assertThat(master.cli("CONFIG", "SET", "requirepass", DEFAULT_PASSWORD)).isEqualTo("OK");
    assertThatThrownBy(() -> master.cli("PING")).hasMessageContaining("NOAUTH");
    assertThat(sentinel.cli("ACL", "SETUSER", "default", "resetpass", ">" + SENTINEL_PASSWORD))
        .isEqualTo("OK");
    assertThatThrownBy(() -> sentinel.cli("PING")).hasMessageContaining("NOAUTH");
  }

  @AfterAll
  static void stopTheGroup() {
    if (group != null) {
      group.close();
    }
  }

  @AfterEach
  void stop() throws InterruptedException {
    for (ManagedChannel channel : channels) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    servers.forEach(RateLimitServer::close);
  }

  private RateLimitServer.Builder builder() throws IOException {
    Path config = dir.resolve("closed.yaml");
    Files.writeString(
        config,
        "domain: closed\nfailure_policy: closed\ndescriptors:\n  - key: client\n"
            + "    rate_limit: {unit: minute, requests_per_unit: 2}\n");
    return RateLimitServer.builder()
        .config(config)
        .host("127.0.0.1")
        .grpcPort(0)
        .httpPort(0)
        .adminPort(0)
        .reloadInterval(Duration.ZERO)
        .redisCommandTimeout(Duration.ofSeconds(1));
  }

  private RateLimitServiceGrpc.RateLimitServiceBlockingStub start(RateLimitServer.Builder builder)
      throws Exception {
    RateLimitServer server = builder.start();
    servers.add(server);
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", server.grpcPort()).usePlaintext().build();
    channels.add(channel);
    return RateLimitServiceGrpc.newBlockingStub(channel);
  }

  private static Code decide(RateLimitServiceGrpc.RateLimitServiceBlockingStub stub, String c) {
    return stub.withDeadlineAfter(10, TimeUnit.SECONDS)
        .shouldRateLimit(
            RateLimitRequest.newBuilder()
                .setDomain("closed")
                .addDescriptors(
                    RateLimitDescriptor.newBuilder()
                        .addEntries(
                            RateLimitDescriptor.Entry.newBuilder().setKey("client").setValue(c)))
                .build())
        .getOverallCode();
  }

  @Test
  void redisSentinel_userPasswordAndSentinelPassword_instancesShareCountsInTheMaster()
      throws Exception {
    RateLimitServiceGrpc.RateLimitServiceBlockingStub first =
        start(
            builder()
                .redisSentinel(
                    group.sentinelUris(),
                    MASTER,
                    USER,
                    USER_PASSWORD.toCharArray(),
                    SENTINEL_PASSWORD.toCharArray()));
    RateLimitServiceGrpc.RateLimitServiceBlockingStub second =
        start(
            builder()
                .redisSentinel(
                    group.sentinelUris(),
                    MASTER,
                    null,
                    DEFAULT_PASSWORD.toCharArray(),
                    SENTINEL_PASSWORD.toCharArray()));

    // Fail-closed answers OK only from Redis.
    assertThat(decide(first, "c1")).isEqualTo(Code.OK);
    assertThat(decide(second, "c1")).isEqualTo(Code.OK);
    assertThat(decide(first, "c1")).isEqualTo(Code.OVER_LIMIT);
    assertThat(
            master.cli("--no-auth-warning", "-a", DEFAULT_PASSWORD, "--scan", "--pattern", "sw:*"))
        .isNotBlank();
  }

  @Test
  void redisSentinel_sentinelPasswordInItsUri_used() throws Exception {
    String sentinel =
        group.sentinelUris().get(0).replace("redis://", "redis://:" + SENTINEL_PASSWORD + "@");
    RateLimitServiceGrpc.RateLimitServiceBlockingStub stub =
        start(
            builder()
                .redisSentinel(List.of(sentinel), MASTER, USER, USER_PASSWORD.toCharArray(), null));
    assertThat(decide(stub, "c2")).isEqualTo(Code.OK);
  }

  @Test
  void redisSentinel_wrongOrMissingCredentials_failsToStartWithoutShowingAPassword()
      throws Exception {
    RateLimitServer.Builder noSentinelPassword =
        builder()
            .redisSentinel(group.sentinelUris(), MASTER, USER, USER_PASSWORD.toCharArray(), null);
    assertThatThrownBy(noSentinelPassword::start)
        .satisfies(
            e ->
                assertThat(messages(e))
                    .contains("refuses the credentials")
                    .doesNotContain(USER_PASSWORD));

    RateLimitServer.Builder wrongUserPassword =
        builder()
            .redisSentinel(
                group.sentinelUris(),
                MASTER,
                USER,
                "not-it".toCharArray(),
                SENTINEL_PASSWORD.toCharArray());
    assertThatThrownBy(wrongUserPassword::start)
        .satisfies(
            e ->
                assertThat(messages(e)).doesNotContain("not-it").doesNotContain(SENTINEL_PASSWORD));

    RateLimitServer.Builder noDataPassword =
        builder()
            .redisSentinel(
                group.sentinelUris(), MASTER, null, null, SENTINEL_PASSWORD.toCharArray());
    assertThatThrownBy(noDataPassword::start)
        .satisfies(
            e ->
                assertThat(messages(e))
                    .contains("refuses the credentials")
                    .doesNotContain(SENTINEL_PASSWORD));
  }

  @Test
  void redisSentinel_twoStores_messageNamesThemWithoutPasswords() throws IOException {
    RateLimitServer.Builder builder =
        builder()
            .redisSentinel(
                group.sentinelUris(),
                MASTER,
                USER,
                USER_PASSWORD.toCharArray(),
                SENTINEL_PASSWORD.toCharArray());
    assertThatThrownBy(() -> builder.redis("redis://:" + USER_PASSWORD + "@127.0.0.1:1"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("sentinel " + MASTER)
        .hasMessageContaining("as " + USER)
        .satisfies(
            e ->
                assertThat(e.getMessage())
                    .doesNotContain(USER_PASSWORD)
                    .doesNotContain(SENTINEL_PASSWORD));
  }

  @Test
  void main_passwordsFromTheEnvironment_startsOnTheSecuredGroupWithoutPrintingThem()
      throws Exception {
    Path config = dir.resolve("closed.yaml");
    builder(); // writes the configuration
    Path output = dir.resolve("main.log");
    ProcessBuilder command =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty(
                    "surefire.test.class.path", System.getProperty("java.class.path")),
                RateLimitServerMain.class.getName(),
                "--config",
                config.toString(),
                "--host",
                "127.0.0.1",
                "--grpc-port",
                "0",
                "--http-port",
                "0",
                "--admin-port",
                "0",
                "--redis-sentinel",
                String.join(",", group.sentinelUris()),
                "--redis-master",
                MASTER,
                "--redis-username",
                USER)
            .redirectErrorStream(true)
            .redirectOutput(output.toFile());
    // Only the settings this test gives: the service refuses a stray SLIDINGWINDOW_ variable.
    command
        .environment()
        .keySet()
        .removeIf(name -> name.toUpperCase(Locale.ROOT).startsWith("SLIDINGWINDOW_"));
    command.environment().put("SLIDINGWINDOW_REDIS_PASSWORD", USER_PASSWORD);
    command.environment().put("SLIDINGWINDOW_REDIS_SENTINEL_PASSWORD", SENTINEL_PASSWORD);
    Process process = command.start();
    try {
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> Files.readString(output).contains("Rate limit service: gRPC on"));
      String printed = Files.readString(output);
      assertThat(printed)
          .contains("sentinel " + MASTER)
          .contains("as " + USER)
          .doesNotContain(USER_PASSWORD)
          .doesNotContain(SENTINEL_PASSWORD);
    } finally {
      process.destroy();
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
    assertThat(Files.readString(output))
        .doesNotContain(USER_PASSWORD)
        .doesNotContain(SENTINEL_PASSWORD);
  }

  /** Every message of {@code e} and its causes, with their stack trace text. */
  private static String messages(Throwable e) {
    StringBuilder all = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      all.append(t).append('\n');
    }
    return all.toString();
  }
}
