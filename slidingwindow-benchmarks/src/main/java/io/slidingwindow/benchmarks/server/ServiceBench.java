package io.slidingwindow.benchmarks.server;

import io.slidingwindow.benchmarks.Proc;
import io.slidingwindow.server.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitRequest;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * BENCHMARK HARNESS: the rate limit service against floors, each in a JVM of its own on the same
 * machine as the load (h2load, one thread), in alternating rounds. Three groups, one at a time:
 *
 * <ul>
 *   <li>{@code memory}: the service in memory, with every call granted and with every call refused
 *       (one descriptor value over its limit), against the bare grpc-java floor with calls on the
 *       event loop and on grpc-java's default executor ({@link GrpcFloor});
 *   <li>{@code redis}: the service on a scratch redis-server, granted and refused, against the
 *       floor that makes one Lettuce {@code EVALSHA return 1} per call, same concurrency;
 *   <li>{@code http}: the service's {@code POST /v1/decide} in memory against bare Netty and Jetty
 *       12 HTTP/1.1 servers ({@link HttpFloor}).
 * </ul>
 *
 * <p>Each target is first driven for {@code --initial-warmup} seconds, unmeasured, so that the JIT
 * has settled (the Redis path keeps C2 busy for tens of seconds). For each target and round: calls
 * per second (h2load's count over its measured duration) and the serving process's CPU time per
 * call, from {@code /proc/<pid>/stat} before and after the round (warm-up excluded only from the
 * count, so CPU per call is slightly high for all alike). Each target is first called once with a
 * gRPC or HTTP client to check its answer. Output: Markdown (see {@link ServiceReport}) and a PNG.
 *
 * <p>Usage: {@code ServiceBench --server-jar JAR --bench-jar JAR [--groups memory,redis,http]
 * [--rounds 3] [--seconds 10] [--warmup 3] [--initial-warmup 20] [--clients 4] [--streams 16]
 * [--http-clients 64] [--java-opts "-Xmx512m"] [--out FILE.md] [--chart FILE.png]}.
 */
public final class ServiceBench {

  /** One thing measured: a server and the calls sent to it. */
  record Target(String group, String name, Server server, boolean grpc, String path, Path data) {}

  /** A server process and where it listens; {@code admin} is the service's admin port, or 0. */
  record Server(String name, Process process, int port, int admin) {}

  /** One round of one target. */
  record Round(
      String group,
      String target,
      int round,
      double perSecond,
      long failed,
      double cpuMicrosPerCall,
      double stealPercent) {}

  private final Map<String, String> options;
  private final Path work;
  private final List<Process> processes = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();

  private ServiceBench(Map<String, String> options) throws IOException {
    this.options = options;
    this.work = Files.createTempDirectory("slidingwindow-service-bench-");
  }

  /** Runs the benchmark; see the class comment. */
  public static void main(String[] args) throws Exception {
    Map<String, String> options = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      options.put(args[i].substring(2), args[i + 1]);
    }
    ServiceBench bench = new ServiceBench(options);
    try {
      List<Round> rounds = new ArrayList<>();
      for (String group : options.getOrDefault("groups", "memory,redis,http").split(",", -1)) {
        rounds.addAll(bench.group(group.trim()));
        bench.stopAll();
      }
      String report = ServiceReport.markdown(rounds, options, bench.notes);
      System.out.println(report);
      if (options.containsKey("out")) {
        Files.writeString(Path.of(options.get("out")), report);
      }
      if (options.containsKey("chart")) {
        ServiceReport.chart(rounds, Path.of(options.get("chart")));
      }
    } finally {
      bench.stopAll();
    }
  }

  private List<Round> group(String group) throws Exception {
    Path config = work.resolve("bench.yaml");
    Files.writeString(
        config,
        """
        domain: bench
        failure_policy: refuse
        descriptors:
          - key: granted
            rate_limit: {unit: second, requests_per_unit: 1000000000}
          - key: refused
            rate_limit: {unit: hour, requests_per_unit: 1}
        """);
    Path granted = grpcData("granted");
    Path refused = grpcData("refused");
    List<Target> targets = new ArrayList<>();
    // The redis group: one redis-server for the floor and one for the service, so that each's
    // script calls are counted apart.
    RedisServerProcess redis = null;
    RedisServerProcess floorRedis = null;
    try {
      switch (group) {
        case "memory" -> {
          Server service = service(config, null, false);
          targets.add(grpc(group, "floor, event loop", floor("direct", null), granted));
          targets.add(grpc(group, "floor, default executor", floor("executor", null), granted));
          targets.add(grpc(group, "service, granted", service, granted));
          targets.add(grpc(group, "service, refused", service, refused));
        }
        case "redis" -> {
          redis = RedisServerProcess.start();
          floorRedis = RedisServerProcess.start();
          Server service = service(config, redis.uri(), false);
          targets.add(
              grpc(group, "floor, Lettuce return 1", floor("lettuce", floorRedis.uri()), granted));
          targets.add(grpc(group, "service on Redis, granted", service, granted));
          targets.add(grpc(group, "service on Redis, refused", service, refused));
        }
        case "http" -> {
          Path json = work.resolve("decide.json");
          Files.writeString(
              json,
              "{\"domain\": \"bench\", \"descriptors\": [{\"entries\": [{\"key\": \"granted\","
                  + " \"value\": \"v\"}]}]}");
          targets.add(http(group, "Netty floor", httpFloor("netty"), json));
          targets.add(http(group, "Jetty 12 floor", httpFloor("jetty"), json));
          targets.add(http(group, "service /v1/decide", service(config, null, true), json));
        }
        default -> throw new IllegalArgumentException("unknown group " + group);
      }
      List<Round> measured = measure(targets);
      for (Target target : targets) {
        if (target.server().admin() > 0 && target.name().startsWith("service")) {
          notes.add(
              group
                  + ": "
                  + TargetChecks.backendErrors(target.server().admin())
                  + " decisions answered by the failure policy");
          break;
        }
      }
      if (redis != null) {
        // The script calls, from each redis-server's own count.
        scriptCalls(group + ", service's redis-server", redis);
        scriptCalls(group + ", floor's redis-server", floorRedis);
      }
      notes.forEach(System.err::println);
      return measured;
    } finally {
      if (redis != null) {
        redis.close();
      }
      if (floorRedis != null) {
        floorRedis.close();
      }
    }
  }

  private List<Round> measure(List<Target> targets) throws Exception {
    for (Target target : targets) {
      TargetChecks.check(target);
    }
    int rounds = Integer.parseInt(options.getOrDefault("rounds", "3"));
    int seconds = Integer.parseInt(options.getOrDefault("seconds", "10"));
    int warmup = Integer.parseInt(options.getOrDefault("warmup", "3"));
    int initial = Integer.parseInt(options.getOrDefault("initial-warmup", "20"));
    // Until the JIT has settled (the Redis path keeps C2 busy for tens of seconds): not measured.
    for (Target target : targets) {
      if (initial > 0) {
        run(target, initial, 0);
      }
    }
    List<Round> results = new ArrayList<>();
    for (int round = 1; round <= rounds; round++) {
      // Rotate the order each round, so that no target always follows the same one.
      for (int i = 0; i < targets.size(); i++) {
        Target target = targets.get((i + round - 1) % targets.size());
        long pid = target.server().process().pid();
        Proc.CpuTimes machineBefore = Proc.cpuTimes();
        long cpuBefore = Proc.processCpuNanos(pid);
        H2load.Result result = run(target, seconds, warmup);
        long cpu = Proc.processCpuNanos(pid) - cpuBefore;
        double calls = result.perSecond() * seconds;
        Round measured =
            new Round(
                target.group(),
                target.name(),
                round,
                result.perSecond(),
                result.failed(),
                cpu / 1000.0 / Math.max(1, calls + result.perSecond() * warmup),
                Proc.cpuTimes().stealPercentSince(machineBefore));
        System.err.printf(
            "%s / %s round %d: %.0f calls/s, %.1f us CPU per call, %d failed%n",
            target.group(),
            target.name(),
            round,
            measured.perSecond(),
            measured.cpuMicrosPerCall(),
            measured.failed());
        results.add(measured);
      }
    }
    return results;
  }

  private H2load.Result run(Target target, int seconds, int warmup)
      throws IOException, InterruptedException {
    return H2load.run(
        "http://127.0.0.1:" + target.server().port() + target.path(),
        target.data(),
        target.grpc(),
        Integer.parseInt(
            options.getOrDefault(
                target.grpc() ? "clients" : "http-clients", target.grpc() ? "4" : "64")),
        Integer.parseInt(options.getOrDefault("streams", "16")),
        seconds,
        warmup);
  }

  private void scriptCalls(String which, RedisServerProcess redis) {
    redis
        .cli("INFO", "commandstats")
        .lines()
        .filter(line -> line.startsWith("cmdstat_evalsha:"))
        .forEach(line -> notes.add(which + ": " + line));
  }

  private Path grpcData(String key) throws IOException {
    byte[] request =
        RateLimitRequest.newBuilder()
            .setDomain("bench")
            .addDescriptors(
                RateLimitDescriptor.newBuilder()
                    .addEntries(RateLimitDescriptor.Entry.newBuilder().setKey(key).setValue("v")))
            .build()
            .toByteArray();
    Path file = work.resolve(key + ".grpc");
    Files.write(file, H2load.grpcFrame(request));
    return file;
  }

  private static Target grpc(String group, String name, Server server, Path data) {
    return new Target(
        group,
        name,
        server,
        true,
        "/envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit",
        data);
  }

  private static Target http(String group, String name, Server server, Path data) {
    return new Target(group, name, server, false, "/v1/decide", data);
  }

  /** The service, in memory or on {@code redis}; its HTTP port or its gRPC port is measured. */
  private Server service(Path config, String redis, boolean httpPort) throws Exception {
    int port = freePort();
    int http = freePort();
    Map<String, String> environment = new LinkedHashMap<>();
    environment.put("SLIDINGWINDOW_CONFIG", config.toString());
    environment.put("SLIDINGWINDOW_HOST", "127.0.0.1");
    environment.put("SLIDINGWINDOW_GRPC_PORT", Integer.toString(port));
    environment.put("SLIDINGWINDOW_HTTP_PORT", Integer.toString(http));
    int admin = freePort();
    environment.put("SLIDINGWINDOW_ADMIN_PORT", Integer.toString(admin));
    environment.put("SLIDINGWINDOW_RELOAD_SECONDS", "0");
    environment.put("SLIDINGWINDOW_LOG_LEVEL", "warn");
    if (redis != null) {
      environment.put("SLIDINGWINDOW_REDIS", redis);
      // Long enough that the failure policy answers nothing on a busy machine: the Redis path is
      // measured, not the policy; ServiceReport says how many the policy answered anyway.
      environment.put("SLIDINGWINDOW_REDIS_TIMEOUT", options.getOrDefault("redis-timeout", "1s"));
    }
    List<String> command = java();
    command.addAll(List.of("-jar", options.get("server-jar")));
    Process process = start("service", command, environment);
    awaitListening(process, port);
    awaitListening(process, http);
    return new Server("service", process, httpPort ? http : port, admin);
  }

  private Server floor(String mode, String redis) throws Exception {
    return floor(GrpcFloor.class, mode, redis == null ? List.of() : List.of("--redis", redis));
  }

  private Server httpFloor(String mode) throws Exception {
    return floor(HttpFloor.class, mode, List.of());
  }

  /** A floor, {@code main} of {@code type} in the benchmarks' jar, on a free port. */
  private Server floor(Class<?> type, String mode, List<String> more) throws Exception {
    int port = freePort();
    List<String> command = java();
    command.addAll(
        List.of(
            "-cp",
            options.get("bench-jar"),
            type.getName(),
            "--port",
            Integer.toString(port),
            "--mode",
            mode));
    command.addAll(more);
    String name = type.getSimpleName() + "-" + mode;
    Process process = start(name, command, Map.of());
    awaitListening(process, port);
    return new Server(name, process, port, 0);
  }

  private List<String> java() {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String option : options.getOrDefault("java-opts", "-Xms512m -Xmx512m").split(" ", -1)) {
      if (!option.isBlank()) {
        command.add(option);
      }
    }
    return command;
  }

  private Process start(String name, List<String> command, Map<String, String> environment)
      throws IOException {
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(work.resolve(name + "-" + System.nanoTime() + ".log").toFile());
    builder.environment().keySet().removeIf(key -> key.startsWith("SLIDINGWINDOW_"));
    builder.environment().putAll(environment);
    Process process = builder.start();
    processes.add(process);
    return process;
  }

  private static void awaitListening(Process process, int port) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("a server process exited, see its log");
      }
      try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
        return;
      } catch (IOException e) {
        TimeUnit.MILLISECONDS.sleep(100);
      }
    }
    throw new IllegalStateException("no server on port " + port + " within 60 s");
  }

  private void stopAll() throws InterruptedException {
    for (Process process : processes) {
      process.destroy();
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
    processes.clear();
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
