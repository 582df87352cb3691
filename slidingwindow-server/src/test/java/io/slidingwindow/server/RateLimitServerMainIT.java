package io.slidingwindow.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitRequest;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitResponse;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.slidingwindow.testkit.redis.WithoutRedisServer;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The service's command line, run as a process of its own: help and version, settings refused with
 * a message that names them, before anything starts, and a service stopped by a signal.
 */
@WithoutRedisServer
class RateLimitServerMainIT {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(
      strings = {
        "--redis-password secret",
        "-Dslidingwindow.server.redisPassword=secret",
        "--admin-token secret"
      })
  void main_secretOnTheCommandLine_refusedNamingTheVariable(String setting) throws Exception {
    Result result = run(Map.of(), setting, "--redis", "redis://127.0.0.1:1");

    assertThat(result.exit()).isEqualTo(2);
    assertThat(result.output())
        .contains("is a secret, read from the environment only")
        .containsPattern("SLIDINGWINDOW_(REDIS_PASSWORD|ADMIN_TOKEN)_FILE")
        .doesNotContain("secret'");
  }

  @Test
  void main_credentialsWithoutAStore_refusedNamingTheSetting() throws Exception {
    Result result = run(Map.of("SLIDINGWINDOW_REDIS_USERNAME", "app"), "");

    assertThat(result.exit()).isEqualTo(2);
    assertThat(result.output()).contains("Redis credentials need a Redis store");
  }

  @Test
  void main_badValueFromTheEnvironment_refusedNamingTheVariableAndValue() throws Exception {
    Result result = run(Map.of("SLIDINGWINDOW_GRPC_PORT", "70000"), "");

    assertThat(result.exit()).isEqualTo(2);
    assertThat(result.output())
        .contains("SLIDINGWINDOW_GRPC_PORT '70000': grpcPort must be from 0 to 65535, was 70000");
  }

  @Test
  void main_unknownVariable_refusedNamingItAndTheOneMeant() throws Exception {
    // Without the check, the service would count in memory; the missing rules make that end.
    Result result =
        run(
            Map.of("SLIDINGWINDOW_REDIS_URI", "redis://127.0.0.1:1"),
            "--config",
            dir.resolve("missing.yaml").toString());

    assertThat(result.exit()).isEqualTo(2);
    assertThat(result.output())
        .startsWith(
            "slidingwindow-server: unknown environment variable SLIDINGWINDOW_REDIS_URI (did you"
                + " mean SLIDINGWINDOW_REDIS?); the service reads SLIDINGWINDOW_ADMIN_ALLOWED_HOSTS,")
        .contains("SLIDINGWINDOW_REDIS, SLIDINGWINDOW_REDIS_BREAKER")
        .doesNotContain("redis://127.0.0.1:1", "missing.yaml");
  }

  @Test
  void main_unknownSystemProperty_refusedNamingItAndTheOneMeant() throws Exception {
    Result result =
        run(
            Map.of(),
            "-Dslidingwindow.server.redisUri=redis://127.0.0.1:1",
            "--config",
            dir.resolve("missing.yaml").toString());

    assertThat(result.exit()).isEqualTo(2);
    assertThat(result.output())
        .startsWith(
            "slidingwindow-server: unknown system property -Dslidingwindow.server.redisUri (did"
                + " you mean -Dslidingwindow.server.redis?); the service reads ")
        .doesNotContain("redis://127.0.0.1:1", "missing.yaml");
  }

  @Test
  void main_helpAndVersion_printAndExitZero() throws Exception {
    Result help = run(Map.of(), "--help");
    Result version = run(Map.of(), "--version");

    assertThat(help.exit()).isZero();
    assertThat(help.output())
        .contains("--grpc-port N", "SLIDINGWINDOW_GRPC_PORT", "default: 8081")
        .contains("SLIDINGWINDOW_REDIS_PASSWORD[_FILE]", "SLIDINGWINDOW_ADMIN_TOKEN[_FILE]")
        .contains("SLIDINGWINDOW_TLS_CLIENT_CA", "SLIDINGWINDOW_LOG_FORMAT");
    assertThat(version.exit()).isZero();
    assertThat(version.output()).matches("slidingwindow-server \\d+\\.\\d+\\.\\d+.*\\s*");
  }

  @Test
  void main_sigterm_stopsGracefullyAndExitsZeroWithTheStopLine() throws Exception {
    Running service = start("--drain-timeout", "30s");
    try {
      service.process().destroy(); // SIGTERM

      assertThat(service.process().waitFor(60, TimeUnit.SECONDS)).as("stops").isTrue();
      String output = Files.readString(service.output());
      assertThat(service.process().exitValue()).as(output).isZero();
      assertThat(output)
          .contains("SIGTERM: stopping; calls in flight have up to 30s to end")
          .contains("Rate limit service stopped");
    } finally {
      service.process().destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void main_sigtermWithJsonLogs_everyLineOneJsonObject_theStopLineToo() throws Exception {
    Running service = start("--log-format", "json");
    try {
      service.process().destroy(); // SIGTERM

      assertThat(service.process().waitFor(60, TimeUnit.SECONDS)).as("stops").isTrue();
      String output = Files.readString(service.output());
      assertThat(service.process().exitValue()).as(output).isZero();
      List<JsonNode> lines = new ArrayList<>();
      for (String line : output.lines().toList()) {
        JsonNode node = JSON.readTree(line);
        assertThat(node.isObject()).as(line).isTrue();
        List<String> fields = new ArrayList<>();
        node.fieldNames().forEachRemaining(fields::add);
        assertThat(fields).as(line).containsExactly("time", "level", "logger", "thread", "message");
        lines.add(node);
      }
      JsonNode last = lines.get(lines.size() - 1);
      assertThat(last.get("message").asText()).isEqualTo("Rate limit service stopped");
      assertThat(last.get("level").asText()).isEqualTo("INFO");
      assertThat(last.get("logger").asText()).isEqualTo(RateLimitServer.class.getName());
      assertThat(lines)
          .anySatisfy(
              line -> assertThat(line.get("message").asText()).startsWith("SIGTERM: stopping"));
    } finally {
      service.process().destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void main_sigtermAtLogLevelWarn_noInfoLine_notTheStopLineEither() throws Exception {
    Running service = start("--log-level", "warn");
    try {
      service.process().destroy(); // SIGTERM

      assertThat(service.process().waitFor(60, TimeUnit.SECONDS)).as("stops").isTrue();
      String output = Files.readString(service.output());
      assertThat(service.process().exitValue()).as(output).isZero();
      assertThat(output)
          .doesNotContain("Rate limit service stopped", "SIGTERM: stopping", " INFO ");
    } finally {
      service.process().destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void main_secondSigtermWhileACallHoldsTheDrain_exits143AtOnce() throws Exception {
    Running service = start("--drain-timeout", "5m");
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", service.grpc()).usePlaintext().build();
    try {
      ClientCall<RateLimitRequest, RateLimitResponse> held =
          channel.newCall(
              RateLimitServiceGrpc.getShouldRateLimitMethod(),
              CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.MINUTES));
      held.start(new ClientCall.Listener<>() {}, new Metadata());
      held.request(1);
      held.sendMessage(EnvoyGrpcIT.request("client", "held"));
      // Never half-closed: the call stays in flight, and the drain waits for it. A call answered
      // on the same connection after it shows that the service has it.
      assertThat(
              RateLimitServiceGrpc.newBlockingStub(channel)
                  .withDeadlineAfter(10, TimeUnit.SECONDS)
                  .shouldRateLimit(EnvoyGrpcIT.request("client", "answered"))
                  .getOverallCode())
          .isEqualTo(RateLimitResponse.Code.OK);

      service.process().destroy();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> Files.readString(service.output()).contains("SIGTERM: stopping"));
      assertThat(service.process().isAlive()).as("draining").isTrue();
      service.process().destroy();

      assertThat(service.process().waitFor(30, TimeUnit.SECONDS)).as("stops at once").isTrue();
      String output = Files.readString(service.output());
      assertThat(service.process().exitValue()).as(output).isEqualTo(143);
      assertThat(output)
          .contains("SIGTERM while stopping: exiting at once")
          .doesNotContain("Rate limit service stopped");
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      service.process().destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void main_sighup_stopsInTheShutdownHookAndStillWritesTheStopLine() throws Exception {
    // A process started under nohup passes SIGHUP on ignored, and a JVM that finds it ignored
    // leaves it so: the child would never see the signal this test sends.
    assumeFalse(
        ignoresSighup(Path.of("/proc/self/status")),
        "SIGHUP is ignored in this process tree (nohup), so the child cannot receive it");
    Running service = start("--drain-timeout", "30s");
    try {
      Process kill =
          new ProcessBuilder("kill", "-HUP", Long.toString(service.process().pid()))
              .inheritIO()
              .start();
      assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
      assertThat(kill.exitValue()).as("kill -HUP").isZero();

      assertThat(service.process().waitFor(60, TimeUnit.SECONDS)).as("stops").isTrue();
      String output = Files.readString(service.output());
      assertThat(service.process().exitValue()).as(output).isEqualTo(129);
      assertThat(output).contains("Rate limit service stopped");
    } finally {
      service.process().destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** Whether the process whose {@code /proc/PID/status} this is ignores SIGHUP (signal 1). */
  private static boolean ignoresSighup(Path status) throws IOException {
    for (String line : Files.readAllLines(status)) {
      if (line.startsWith("SigIgn:")) {
        return (Long.parseUnsignedLong(line.substring(7).trim(), 16) & 1L) != 0;
      }
    }
    return false;
  }

  /** A service running in a process of its own, in memory, on free loopback ports. */
  private record Running(Process process, Path output, int grpc) {}

  private Running start(String... settings) throws Exception {
    Path config = TestServers.clientConfig(dir, "second", 5);
    int grpc = freePort();
    int http = freePort();
    List<String> args = new ArrayList<>(List.of(settings));
    args.addAll(
        List.of(
            "--config",
            config.toString(),
            "--host",
            "127.0.0.1",
            "--grpc-port",
            Integer.toString(grpc),
            "--http-port",
            Integer.toString(http),
            "--admin-port",
            Integer.toString(freePort()),
            "--reload-seconds",
            "0"));
    Path output = dir.resolve("service-" + grpc + ".log");
    Process process =
        command(args).redirectErrorStream(true).redirectOutput(output.toFile()).start();
    try {
      if (args.contains("warn")) {
        awaitHealthy(process, output, http); // the start line is INFO
      } else {
        TestServers.awaitStartLine(process, output);
      }
    } catch (RuntimeException | Error e) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      throw e;
    }
    return new Running(process, output, grpc);
  }

  private static void awaitHealthy(Process process, Path output, int http) {
    HttpClient client = HttpClient.newHttpClient();
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http + "/healthcheck"))
            .timeout(Duration.ofSeconds(5))
            .build();
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptionsInstanceOf(IOException.class)
        .until(
            () -> {
              if (!process.isAlive()) {
                throw new AssertionError("the service exited: " + Files.readString(output));
              }
              return client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode()
                  == 200;
            });
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private static ProcessBuilder command(List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(serviceClassPath());
    command.add(RateLimitServerMain.class.getName());
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command);
    builder
        .environment()
        .keySet()
        .removeIf(name -> name.toUpperCase(Locale.ROOT).startsWith("SLIDINGWINDOW_"));
    return builder;
  }

  /**
   * The tests' class path without SLF4J, which some test library brings and the service's {@code
   * lib/} has not: without a provider, its API writes lines of its own to standard error.
   */
  private static String serviceClassPath() {
    String path =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    return Arrays.stream(path.split(File.pathSeparator))
        .filter(entry -> !Path.of(entry).getFileName().toString().startsWith("slf4j-"))
        .collect(Collectors.joining(File.pathSeparator));
  }

  private record Result(int exit, String output) {}

  private Result run(Map<String, String> environment, String setting, String... more)
      throws Exception {
    Path output = dir.resolve("main-" + System.nanoTime() + ".log");
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    if (setting.startsWith("-D")) {
      command.add(setting);
    }
    command.add("-cp");
    command.add(
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")));
    command.add(RateLimitServerMain.class.getName());
    if (setting.startsWith("--")) {
      command.addAll(List.of(setting.split(" ")));
    }
    command.addAll(List.of(more));
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
    builder
        .environment()
        .keySet()
        .removeIf(name -> name.toUpperCase(Locale.ROOT).startsWith("SLIDINGWINDOW_"));
    builder.environment().putAll(environment);
    Process process = builder.start();
    boolean exited = process.waitFor(60, TimeUnit.SECONDS);
    if (!exited) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    assertThat(exited).as("the process ends by itself").isTrue();
    return new Result(process.exitValue(), Files.readString(output));
  }
}
