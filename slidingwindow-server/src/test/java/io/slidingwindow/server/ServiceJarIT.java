package io.slidingwindow.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged service as an operator runs it: {@code java -jar
 * target/slidingwindow-server-VERSION.jar}, configured by environment variables only, next to a
 * redis-server of its own with a password (read from a file). Then the same jar with TLS, on a
 * Redis reached over TLS ({@code rediss://}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ServiceJarIT {

  private static final String TOKEN = "jar-admin-token";
  private static final String REDIS_PASSWORD = "jar-redis-secret";
  private static final String CONFIG =
      """
      domain: api
      failure_policy: refuse
      descriptors:
        - key: client
          rate_limit: {unit: minute, requests_per_unit: 100}
      """;

  @TempDir static Path dir;
  private RedisServerProcess redis;
  private String redisPid;
  private Service service;
  private final List<ManagedChannel> channels = new ArrayList<>();
  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /** A running jar: its process, output and ports. */
  private record Service(Process process, Path output, int grpc, int http, int admin) {}

  @BeforeAll
  void start() throws Exception {
    Files.writeString(dir.resolve("api.yaml"), CONFIG);
    Files.writeString(dir.resolve("redis-password"), REDIS_PASSWORD + "\n");
    redis = RedisServerProcess.start();
    redisPid = info(redis, "process_id");
    redis.cli("CONFIG", "SET", "requirepass", REDIS_PASSWORD);
    Map<String, String> environment = new HashMap<>();
    environment.put("SLIDINGWINDOW_REDIS", redis.uri());
    environment.put("SLIDINGWINDOW_REDIS_PASSWORD_FILE", dir.resolve("redis-password").toString());
    environment.put("SLIDINGWINDOW_REDIS_TIMEOUT", "200ms");
    environment.put("SLIDINGWINDOW_ADMIN_TOKEN", TOKEN);
    environment.put("SLIDINGWINDOW_LOG_FORMAT", "json");
    service = startJar(environment);
  }

  @AfterAll
  void stop() throws Exception {
    signal(redisPid, "CONT");
    for (ManagedChannel channel : channels) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    if (service != null) {
      stopJar(service);
    }
    if (redis != null) {
      redis.close();
    }
    if (service != null) {
      assertThat(service.process().exitValue()).as("the jar's status after SIGTERM").isZero();
    }
  }

  @Test
  void jar_helpAndVersion_printAndExitZero() throws Exception {
    Process help = command(List.of("--help"), Map.of()).start();
    Process version = command(List.of("--version"), Map.of()).start();

    assertThat(help.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(version.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(help.exitValue()).isZero();
    assertThat(new String(help.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
        .contains("SLIDINGWINDOW_REDIS_PASSWORD[_FILE]", "--grpc-port N", "default: 8081");
    assertThat(version.exitValue()).isZero();
    assertThat(new String(version.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
        .startsWith("slidingwindow-server 0.");
  }

  @Test
  void jar_decidesOverGrpcAndHttpOnRedis() throws Exception {
    assertThat(decide(channel(service, InsecureChannelCredentials.create()), "g"))
        .isEqualTo(Code.OK);
    HttpResponse<String> http =
        send(
            HttpRequest.newBuilder(uri(service.http(), "/v1/decide"))
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"domain\": \"api\", \"descriptors\": [{\"entries\": [{\"key\":"
                            + " \"client\", \"value\": \"h\"}]}]}")));
    assertThat(http.statusCode()).isEqualTo(200);
    assertThat(redis.cli("-a", REDIS_PASSWORD, "--no-auth-warning", "DBSIZE")).isNotEqualTo("0");
  }

  @Test
  void jar_adminOffTheDecisionPortAndBehindTheToken() throws Exception {
    for (String path : List.of("/metrics", "/v1/stats", "/v1/config", "/dashboard")) {
      assertThat(get(service.http(), path, null).statusCode()).as(path).isEqualTo(404);
      assertThat(get(service.admin(), path, null).statusCode()).as(path).isEqualTo(401);
      assertThat(get(service.admin(), path, TOKEN).statusCode()).as(path).isEqualTo(200);
    }
  }

  @Test
  void jar_redisStopped_notReadyAndCountsBackendErrors_thenReadyAgain() throws Exception {
    ManagedChannel channel = channel(service, InsecureChannelCredentials.create());
    assertThat(health(channel, "")).isEqualTo(ServingStatus.SERVING);
    double before = backendErrors();

    signal(redisPid, "STOP");
    try {
      await()
          .atMost(Duration.ofSeconds(5))
          .untilAsserted(
              () -> {
                assertThat(health(channel, "")).isEqualTo(ServingStatus.NOT_SERVING);
                assertThat(get(service.http(), "/healthcheck", null).statusCode()).isEqualTo(503);
              });
      assertThat(health(channel, "liveness")).isEqualTo(ServingStatus.SERVING);
      assertThat(decide(channel, "stopped")).isEqualTo(Code.OVER_LIMIT);
      assertThat(backendErrors()).isGreaterThan(before);
    } finally {
      signal(redisPid, "CONT");
    }
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              assertThat(health(channel, "")).isEqualTo(ServingStatus.SERVING);
              assertThat(get(service.http(), "/healthcheck", null).statusCode()).isEqualTo(200);
            });
  }

  @Test
  void jar_invalidUtf8_invalidArgumentWithoutAStackTrace() throws Exception {
    byte[] request = EnvoyGrpcIT.request("client", "c").toByteArray();
    request[new String(request, StandardCharsets.ISO_8859_1).indexOf("api")] =
        (byte) 0xc3; // domain
    long linesBefore = Files.readAllLines(service.output()).size();

    assertThatThrownBy(
            () ->
                EnvoyGrpcIT.callRaw(channel(service, InsecureChannelCredentials.create()), request))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(e.getStatus().getDescription()).contains("not valid UTF-8");
            });
    assertThat(get(service.admin(), "/metrics", TOKEN).body())
        .contains("reason=\"invalid_utf8\",transport=\"grpc\"");
    List<String> lines = Files.readAllLines(service.output());
    assertThat(lines.subList((int) linesBefore, lines.size()))
        .noneMatch(line -> line.contains("\"error\"") || line.contains("\tat "));
  }

  @Test
  void jar_64HalfSentRequests_delayNoDecision() throws Exception {
    List<Socket> half = new ArrayList<>();
    try {
      for (int i = 0; i < 64; i++) {
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), service.http());
        socket
            .getOutputStream()
            .write(
                "POST /v1/decide HTTP/1.1\r\nHost: x\r\nContent-Length: 99\r\n\r\n{\"do"
                    .getBytes(StandardCharsets.US_ASCII));
        half.add(socket);
      }
      HttpResponse<String> answer =
          send(
              HttpRequest.newBuilder(uri(service.http(), "/v1/decide"))
                  .timeout(Duration.ofSeconds(5))
                  .header("Content-Type", "application/json")
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"domain\": \"api\", \"descriptors\": [{\"entries\": [{\"key\":"
                              + " \"client\", \"value\": \"half\"}]}]}")));
      assertThat(answer.statusCode()).isEqualTo(200);
      assertThat(decide(channel(service, InsecureChannelCredentials.create()), "half-grpc"))
          .isEqualTo(Code.OK);
    } finally {
      for (Socket socket : half) {
        socket.close();
      }
    }
  }

  @Test
  void jarWithTls_servesGrpcOverTlsOnRedisOverTls_andRefusesPlaintext() throws Exception {
    TestCertificates certificates =
        TestCertificates.write(Files.createDirectory(dir.resolve("tls")));
    int redisTls = freePort();
    try (RedisServerProcess tlsRedis =
        RedisServerProcess.startWithConfig(
            "tls-port " + redisTls,
            "tls-cert-file " + certificates.serverCert(),
            "tls-key-file " + certificates.serverKey(),
            "tls-ca-cert-file " + certificates.caCert(),
            "tls-auth-clients no")) {
      Path trustStore = dir.resolve("trust.p12");
      KeyStore trust = KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      try (InputStream ca = Files.newInputStream(certificates.caCert())) {
        trust.setCertificateEntry(
            "ca",
            java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(ca));
      }
      try (var out = Files.newOutputStream(trustStore)) {
        trust.store(out, "changeit".toCharArray());
      }
      Map<String, String> environment = new HashMap<>();
      environment.put("SLIDINGWINDOW_REDIS", "rediss://127.0.0.1:" + redisTls);
      // Its first call loads the script over TLS: on a busy machine, longer than the 50 ms default.
      environment.put("SLIDINGWINDOW_REDIS_TIMEOUT", "2s");
      environment.put("SLIDINGWINDOW_TLS_CERT", certificates.serverCert().toString());
      environment.put("SLIDINGWINDOW_TLS_KEY", certificates.serverKey().toString());
      environment.put(
          "JAVA_TOOL_OPTIONS",
          "-Djavax.net.ssl.trustStore="
              + trustStore
              + " -Djavax.net.ssl.trustStorePassword=changeit");
      Service tls = startJar(environment);
      try {
        ChannelCredentials credentials =
            TlsChannelCredentials.newBuilder().trustManager(certificates.caCert().toFile()).build();
        assertThat(decide(channel(tls, credentials), "tls")).isEqualTo(Code.OK);
        assertThat(tlsRedis.cli("DBSIZE")).isNotEqualTo("0");
        assertThatThrownBy(() -> decide(channel(tls, InsecureChannelCredentials.create()), "plain"))
            .isInstanceOfSatisfying(
                StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
      } finally {
        stopJar(tls);
      }
      assertThat(tls.process().exitValue()).as("the jar's status after SIGTERM").isZero();
    }
  }

  private Service startJar(Map<String, String> extra) throws Exception {
    int grpc = freePort();
    int http = freePort();
    int admin = freePort();
    Map<String, String> environment = new HashMap<>(extra);
    environment.put("SLIDINGWINDOW_CONFIG", dir.resolve("api.yaml").toString());
    environment.put("SLIDINGWINDOW_HOST", "127.0.0.1");
    environment.put("SLIDINGWINDOW_GRPC_PORT", Integer.toString(grpc));
    environment.put("SLIDINGWINDOW_HTTP_PORT", Integer.toString(http));
    environment.put("SLIDINGWINDOW_ADMIN_PORT", Integer.toString(admin));
    environment.put("SLIDINGWINDOW_RELOAD_SECONDS", "0");
    Path output = dir.resolve("service-" + grpc + ".log");
    Process process =
        command(List.of(), environment)
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    Service started = new Service(process, output, grpc, http, admin);
    try {
      TestServers.awaitStartLine(process, output);
    } catch (RuntimeException | Error e) {
      stopJar(started);
      throw e;
    }
    return started;
  }

  private static void stopJar(Service service) throws InterruptedException {
    service.process().destroy();
    if (!service.process().waitFor(20, TimeUnit.SECONDS)) {
      service.process().destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  private static ProcessBuilder command(List<String> args, Map<String, String> environment)
      throws IOException {
    Path jar;
    try (Stream<Path> files = Files.list(Path.of("target"))) {
      jar =
          files
              .filter(p -> p.getFileName().toString().matches("slidingwindow-server-[^-]+.*\\.jar"))
              .filter(p -> !p.getFileName().toString().matches(".*-(sources|javadoc|tests)\\.jar"))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no jar in target/: run the package phase"));
    }
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-jar");
    command.add(jar.toString());
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command);
    builder
        .environment()
        .keySet()
        .removeIf(name -> name.toUpperCase(Locale.ROOT).startsWith("SLIDINGWINDOW_"));
    builder.environment().putAll(environment);
    return builder;
  }

  private ManagedChannel channel(Service service, ChannelCredentials credentials) {
    ManagedChannel channel =
        Grpc.newChannelBuilderForAddress("127.0.0.1", service.grpc(), credentials).build();
    channels.add(channel);
    return channel;
  }

  private static Code decide(ManagedChannel channel, String client) {
    return RateLimitServiceGrpc.newBlockingStub(channel)
        .withDeadlineAfter(10, TimeUnit.SECONDS)
        .shouldRateLimit(EnvoyGrpcIT.request("client", client))
        .getOverallCode();
  }

  private static ServingStatus health(ManagedChannel channel, String service) {
    return HealthGrpc.newBlockingStub(channel)
        .withDeadlineAfter(5, TimeUnit.SECONDS)
        .check(HealthCheckRequest.newBuilder().setService(service).build())
        .getStatus();
  }

  private double backendErrors() throws Exception {
    return get(service.admin(), "/metrics", TOKEN)
        .body()
        .lines()
        .filter(line -> line.startsWith("slidingwindow_server_backend_errors_total{"))
        .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
        .sum();
  }

  private HttpResponse<String> get(int port, String path, String token) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri(port, path));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return send(request);
  }

  private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
    return client.send(
        request.timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static URI uri(int port, String path) {
    return URI.create("http://127.0.0.1:" + port + path);
  }

  private static String info(RedisServerProcess redis, String field) {
    return redis
        .cli("INFO", "server")
        .lines()
        .filter(line -> line.startsWith(field + ":"))
        .map(line -> line.substring(field.length() + 1).trim())
        .findFirst()
        .orElseThrow();
  }

  private static void signal(String pid, String name) throws Exception {
    if (pid != null) {
      Process kill = new ProcessBuilder("kill", "-" + name, pid).inheritIO().start();
      assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
