package io.slidingwindow.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.UInt64Value;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.slidingwindow.Limit;
import io.slidingwindow.server.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitRequest;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitResponse;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.slidingwindow.server.envoy.type.v3.RateLimitUnit;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.testkit.LogCapture;
import io.slidingwindow.testkit.SlidingLogOracle;
import io.slidingwindow.testkit.redis.WithoutRedisServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@WithoutRedisServer
class EnvoyGrpcIT {

  private static final String CONFIG =
      """
      domain: api
      descriptors:
        - key: client
          rate_limit:
            unit: minute
            requests_per_unit: 2
        - key: user
          rate_limits:
            - requests: 5
              window: 10s
            - requests: 12
              window: 90s
        - key: blocked
          rate_limit:
            unit: second
            requests_per_unit: 0
        - key: free
          rate_limit:
            unlimited: true
        - key: trial
          shadow_mode: true
          rate_limit:
            unit: second
            requests_per_unit: 1
      """;

  @TempDir Path dir;
  private final FakeTicker ticker = new FakeTicker(-7_000_000_000L);
  private RateLimitServer server;
  private ManagedChannel channel;
  private RateLimitServiceGrpc.RateLimitServiceBlockingStub stub;

  @BeforeEach
  void start() throws IOException, ConfigException {
    Path config = dir.resolve("api.yaml");
    Files.writeString(config, CONFIG);
    server =
        RateLimitServer.builder()
            .config(config)
            .host("127.0.0.1")
            .grpcPort(0)
            .httpPort(0)
            .adminPort(0)
            .ticker(ticker)
            .reloadInterval(Duration.ZERO)
            .start();
    channel = NettyChannelBuilder.forAddress("127.0.0.1", server.grpcPort()).usePlaintext().build();
    stub = RateLimitServiceGrpc.newBlockingStub(channel);
  }

  /** The stub with a deadline for one call (a deadline is a point in time, not a duration). */
  private RateLimitServiceGrpc.RateLimitServiceBlockingStub stub() {
    return stub.withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    server.close();
  }

  @Test
  void shouldRateLimit_overTheLimit_answersOkThenOverLimitThenOkOnceTheWindowPassed() {
    RateLimitResponse first = stub().shouldRateLimit(request("client", "10.0.0.1"));
    RateLimitResponse second = stub().shouldRateLimit(request("client", "10.0.0.1"));
    ticker.advance(Duration.ofSeconds(20));
    RateLimitResponse third = stub().shouldRateLimit(request("client", "10.0.0.1"));

    assertThat(first.getOverallCode()).isEqualTo(Code.OK);
    RateLimitResponse.DescriptorStatus status = first.getStatuses(0);
    assertThat(status.getCode()).isEqualTo(Code.OK);
    assertThat(status.getCurrentLimit().getRequestsPerUnit()).isEqualTo(2);
    assertThat(status.getCurrentLimit().getUnit())
        .isEqualTo(RateLimitResponse.RateLimit.Unit.MINUTE);
    assertThat(status.getLimitRemaining()).isEqualTo(1);
    assertThat(second.getOverallCode()).isEqualTo(Code.OK);
    assertThat(second.getStatuses(0).getLimitRemaining()).isZero();
    assertThat(third.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(third.getStatuses(0).getCode()).isEqualTo(Code.OVER_LIMIT);
    // Both grants were at the same instant, 20 s ago: the request fits again 40 s from now, late
    // by less than the precision (a thousandth of the window).
    com.google.protobuf.Duration retry = third.getStatuses(0).getDurationUntilReset();
    Duration retryAfter = Duration.ofSeconds(retry.getSeconds(), retry.getNanos());
    assertThat(retryAfter).isBetween(Duration.ofSeconds(40), Duration.ofMillis(40_060));

    ticker.advance(retryAfter.minusNanos(1));
    assertThat(stub().shouldRateLimit(request("client", "10.0.0.1")).getOverallCode())
        .isEqualTo(Code.OVER_LIMIT);
    ticker.advance(1);
    assertThat(stub().shouldRateLimit(request("client", "10.0.0.1")).getOverallCode())
        .isEqualTo(Code.OK);
    assertThat(stub().shouldRateLimit(request("client", "10.0.0.2")).getOverallCode())
        .isEqualTo(Code.OK);
  }

  @Test
  void shouldRateLimit_randomSchedule_neverGrantsMoreThanNInAnyWindow() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    Limit short10s = Limit.of(5, Duration.ofSeconds(10));
    Limit long90s = Limit.of(12, Duration.ofSeconds(90));
    SlidingLogOracle shortOracle = SlidingLogOracle.of(short10s);
    SlidingLogOracle longOracle = SlidingLogOracle.of(long90s);
    int granted = 0;
    int refused = 0;
    for (int i = 0; i < 300; i++) {
      ticker.advance(
          random.nextInt(4) == 0 ? random.nextInt(10_000_000) : random.nextInt(2_000_000_000));
      long hits = 1L + random.nextInt(3);
      long now = ticker.read();
      RateLimitResponse response =
          stub()
              .shouldRateLimit(request("user", "u1").toBuilder().setHitsAddend((int) hits).build());
      if (response.getOverallCode() == Code.OK) {
        shortOracle.record(now, hits);
        longOracle.record(now, hits);
        granted++;
      } else {
        refused++;
        // Refused only where an exact log over window + precision refuses too.
        boolean exactShort =
            shortOracle.wouldGrant(now, hits, short10s.windowNanos() + short10s.precisionNanos());
        boolean exactLong =
            longOracle.wouldGrant(now, hits, long90s.windowNanos() + long90s.precisionNanos());
        assertThat(exactShort && exactLong)
            .as("seed %s, step %s: needless refusal", seed, i)
            .isFalse();
      }
    }
    assertThat(shortOracle.maxInAnyWindow()).as("seed %s", seed).isLessThanOrEqualTo(5);
    assertThat(longOracle.maxInAnyWindow()).as("seed %s", seed).isLessThanOrEqualTo(12);
    // The schedule exercised both answers.
    assertThat(granted).as("seed %s", seed).isGreaterThan(5);
    assertThat(refused).as("seed %s", seed).isGreaterThan(5);
  }

  @Test
  void shouldRateLimit_manyThreadsOnOneKeyAtOneInstant_grantExactlyTheLimit() throws Exception {
    // client: 2 per minute; 8 threads ask 25 times each while the clock stands still.
    ExecutorService pool = Executors.newFixedThreadPool(8);
    AtomicInteger granted = new AtomicInteger();
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 25; i++) {
                    if (stub().shouldRateLimit(request("client", "hot")).getOverallCode()
                        == Code.OK) {
                      granted.incrementAndGet();
                    }
                  }
                }));
      }
      for (Future<?> future : done) {
        future.get(30, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }

    assertThat(granted.get()).isEqualTo(2);
  }

  @Test
  void shouldRateLimit_severalDescriptors_isOverLimitIfAnyIs() {
    RateLimitResponse response =
        stub()
            .shouldRateLimit(
                RateLimitRequest.newBuilder()
                    .setDomain("api")
                    .addDescriptors(descriptor("free", "x"))
                    .addDescriptors(descriptor("blocked", "y"))
                    .addDescriptors(descriptor("nothing", "z"))
                    .build());

    assertThat(response.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(response.getStatuses(0).getCode()).isEqualTo(Code.OK);
    assertThat(response.getStatuses(0).getLimitRemaining()).isEqualTo(-1); // uint32 max
    assertThat(response.getStatuses(1).getCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(response.getStatuses(1).getCurrentLimit().getRequestsPerUnit()).isZero();
    assertThat(response.getStatuses(2).getCode()).isEqualTo(Code.OK);
    assertThat(response.getStatuses(2).hasCurrentLimit()).isFalse();
  }

  /**
   * Envoy sends a descriptor without entries when every action of one of a route's rate limits is a
   * {@code request_headers} with {@code skip_if_absent} whose header the client left out. Refused,
   * the whole call failed and Envoy (failure_mode_deny false by default) let the request through
   * with its other descriptors, the client's address here, never counted.
   */
  @Test
  void shouldRateLimit_aDescriptorWithoutEntries_matchesNothing_theOthersAreStillCounted() {
    RateLimitRequest request =
        RateLimitRequest.newBuilder()
            .setDomain("api")
            .addDescriptors(descriptor("client", "10.0.0.9"))
            .addDescriptors(RateLimitDescriptor.getDefaultInstance())
            .build();

    RateLimitResponse first = stub().shouldRateLimit(request);
    RateLimitResponse second = stub().shouldRateLimit(request);
    RateLimitResponse third = stub().shouldRateLimit(request);

    assertThat(first.getOverallCode()).isEqualTo(Code.OK);
    assertThat(first.getStatuses(0).getLimitRemaining()).isEqualTo(1);
    assertThat(first.getStatuses(1).getCode()).isEqualTo(Code.OK);
    assertThat(first.getStatuses(1).hasCurrentLimit()).isFalse();
    assertThat(second.getOverallCode()).isEqualTo(Code.OK);
    assertThat(third.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(third.getStatuses(0).getCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(third.getStatuses(1).getCode()).isEqualTo(Code.OK);
  }

  /**
   * Guards of the documented semantics: hits_addend 0 takes one permit, on the request and on a
   * descriptor; the same descriptor twice in one request is counted twice; entries are matched by
   * position, so a descriptor with a second entry of the same key has the depth of no rule here and
   * matches nothing, and takes nothing from the one-entry descriptor's count.
   */
  @Test
  void shouldRateLimit_hitsZeroTwiceTheSameAndARepeatedKey_countAsDocumented() {
    RateLimitResponse zero =
        stub().shouldRateLimit(request("client", "z").toBuilder().setHitsAddend(0).build());
    RateLimitResponse descriptorZero =
        stub()
            .shouldRateLimit(
                RateLimitRequest.newBuilder()
                    .setDomain("api")
                    .setHitsAddend(0)
                    .addDescriptors(
                        descriptor("client", "z").toBuilder().setHitsAddend(UInt64Value.of(0)))
                    .build());
    RateLimitResponse twice =
        stub()
            .shouldRateLimit(
                RateLimitRequest.newBuilder()
                    .setDomain("api")
                    .addDescriptors(descriptor("client", "t"))
                    .addDescriptors(descriptor("client", "t"))
                    .build());
    RateLimitResponse repeated =
        stub()
            .shouldRateLimit(
                RateLimitRequest.newBuilder()
                    .setDomain("api")
                    .addDescriptors(descriptor("client", "r", "client", "other"))
                    .build());

    assertThat(zero.getStatuses(0).getLimitRemaining()).isEqualTo(1);
    assertThat(descriptorZero.getStatuses(0).getLimitRemaining()).isZero();
    assertThat(stub().shouldRateLimit(request("client", "z")).getOverallCode())
        .isEqualTo(Code.OVER_LIMIT);
    assertThat(twice.getStatuses(0).getLimitRemaining()).isEqualTo(1);
    assertThat(twice.getStatuses(1).getLimitRemaining()).isZero();
    assertThat(stub().shouldRateLimit(request("client", "t")).getOverallCode())
        .isEqualTo(Code.OVER_LIMIT);
    assertThat(repeated.getOverallCode()).isEqualTo(Code.OK);
    assertThat(repeated.getStatuses(0).hasCurrentLimit()).isFalse();
    assertThat(stub().shouldRateLimit(request("client", "r")).getStatuses(0).getLimitRemaining())
        .isEqualTo(1);
  }

  @Test
  void shouldRateLimit_shadowMode_answersOkButDoesNotCount() {
    assertThat(stub().shouldRateLimit(request("trial", "t")).getOverallCode()).isEqualTo(Code.OK);
    RateLimitResponse shadowed = stub().shouldRateLimit(request("trial", "t"));

    assertThat(shadowed.getOverallCode()).isEqualTo(Code.OK);
    assertThat(shadowed.getStatuses(0).getCode()).isEqualTo(Code.OK);
    assertThat(shadowed.getStatuses(0).getLimitRemaining()).isZero();
  }

  @Test
  void shouldRateLimit_hitsAbove_theLimitAreOverLimitAndCountNothing() {
    RateLimitResponse tooMany =
        stub().shouldRateLimit(request("client", "c").toBuilder().setHitsAddend(3).build());
    RateLimitResponse descriptorHits =
        stub()
            .shouldRateLimit(
                RateLimitRequest.newBuilder()
                    .setDomain("api")
                    .addDescriptors(
                        descriptor("client", "c").toBuilder().setHitsAddend(UInt64Value.of(2)))
                    .build());

    assertThat(tooMany.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(descriptorHits.getOverallCode()).isEqualTo(Code.OK);
    assertThat(descriptorHits.getStatuses(0).getLimitRemaining()).isZero();
  }

  @Test
  void shouldRateLimit_limitOverride_usesTheRequestsLimit() {
    RateLimitDescriptor overridden =
        descriptor("anything", "a").toBuilder()
            .setLimit(
                RateLimitDescriptor.RateLimitOverride.newBuilder()
                    .setRequestsPerUnit(1)
                    .setUnit(RateLimitUnit.HOUR))
            .build();
    RateLimitRequest request =
        RateLimitRequest.newBuilder().setDomain("api").addDescriptors(overridden).build();

    assertThat(stub().shouldRateLimit(request).getOverallCode()).isEqualTo(Code.OK);
    RateLimitResponse second = stub().shouldRateLimit(request);
    assertThat(second.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(second.getStatuses(0).getCurrentLimit().getUnit())
        .isEqualTo(RateLimitResponse.RateLimit.Unit.HOUR);
  }

  /**
   * A limit override without a unit failed the whole call with INVALID_ARGUMENT, which Envoy,
   * without failure_mode_deny, takes as leave to pass the request uncounted: now that descriptor
   * alone is answered OVER_LIMIT, the others are counted, and the metric says so.
   */
  @Test
  void shouldRateLimit_overrideWithoutAUnit_overLimitForThatDescriptorAlone() throws Exception {
    RateLimitRequest request =
        RateLimitRequest.newBuilder()
            .setDomain("api")
            .addDescriptors(
                descriptor("x", "y").toBuilder()
                    .setLimit(
                        RateLimitDescriptor.RateLimitOverride.newBuilder().setRequestsPerUnit(3)))
            .addDescriptors(descriptor("client", "unit-less"))
            .build();

    RateLimitResponse response = stub().shouldRateLimit(request);

    assertThat(response.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(response.getStatuses(0).getCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(response.getStatuses(0).getCurrentLimit().getUnit())
        .isEqualTo(RateLimitResponse.RateLimit.Unit.UNKNOWN);
    assertThat(response.getStatuses(1).getCode()).isEqualTo(Code.OK);
    HttpResponse<String> metrics =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + server.adminPort() + "/metrics"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(metrics.body())
        .contains(
            "slidingwindow_server_decisions_total{descriptor=\"override\",domain=\"api\","
                + "outcome=\"bad_override\"} 1.0");
  }

  /**
   * A descriptor hits_addend above 2^32 - 1 failed the whole call with INVALID_ARGUMENT, which
   * Envoy, without failure_mode_deny, takes as leave to pass the request uncounted: it is now more
   * than any limit holds, that descriptor alone OVER_LIMIT and counting nothing (also above 2^63 -
   * 1), the others counted.
   */
  @Test
  void shouldRateLimit_descriptorHitsAboveUint32_overLimitForThatDescriptorAlone() {
    for (long hits : new long[] {1L << 40, -1L}) { // -1: 2^64 - 1 as a uint64
      RateLimitRequest request =
          RateLimitRequest.newBuilder()
              .setDomain("api")
              .addDescriptors(
                  descriptor("client", "huge").toBuilder().setHitsAddend(UInt64Value.of(hits)))
              .addDescriptors(descriptor("client", "normal" + hits))
              .build();

      RateLimitResponse response = stub().shouldRateLimit(request);

      assertThat(response.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
      assertThat(response.getStatuses(0).getCode()).isEqualTo(Code.OVER_LIMIT);
      assertThat(response.getStatuses(0).getLimitRemaining()).isZero();
      assertThat(response.getStatuses(0).getCurrentLimit().getRequestsPerUnit()).isEqualTo(2);
      assertThat(response.getStatuses(1).getCode()).isEqualTo(Code.OK);
      assertThat(response.getStatuses(1).getLimitRemaining()).isEqualTo(1);
    }
    assertThat(stub().shouldRateLimit(request("client", "huge")).getStatuses(0).getLimitRemaining())
        .isEqualTo(1);
  }

  @Test
  void shouldRateLimit_badInput_failsWithAClearStatusAndTheServiceStaysUp() {
    assertStatus(
        RateLimitRequest.newBuilder().setDomain("api").build(),
        Status.Code.INVALID_ARGUMENT,
        "descriptors must not be empty");
    assertStatus(
        request("client", "c").toBuilder().setDomain("").build(),
        Status.Code.INVALID_ARGUMENT,
        "domain must not be empty");
    assertStatus(
        request("client", "c").toBuilder().setDomain("nope").build(),
        Status.Code.NOT_FOUND,
        "unknown domain 'nope'");
    assertStatus(
        request("", "c"),
        Status.Code.INVALID_ARGUMENT,
        "descriptor 0 has an entry with an empty key");
    assertStatus(
        request("k".repeat(5000), "v"), Status.Code.INVALID_ARGUMENT, "key longer than 4096");
    RateLimitRequest.Builder many = RateLimitRequest.newBuilder().setDomain("api");
    for (int i = 0; i < 65; i++) {
      many.addDescriptors(descriptor("client", "c" + i));
    }
    assertStatus(many.build(), Status.Code.INVALID_ARGUMENT, "at most 64 descriptors, had 65");

    assertThat(stub().shouldRateLimit(request("client", "c")).getOverallCode()).isEqualTo(Code.OK);
  }

  @Test
  void shouldRateLimit_domainNotUtf8_invalidArgumentInOneLineCountedAndNothingLogged()
      throws Exception {
    byte[] valid = request("client", "c").toByteArray();
    byte[] invalid = valid.clone();
    int at = new String(valid, java.nio.charset.StandardCharsets.ISO_8859_1).indexOf("api");
    invalid[at] = (byte) 0xff; // a value that is not UTF-8 is read by its bytes: FailOpenInputIT
    List<java.util.logging.LogRecord> logged;
    try (LogCapture everyone = LogCapture.atConfiguredLevel("")) {
      assertThatThrownBy(() -> callRaw(channel, invalid))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                assertThat(e.getStatus().getDescription())
                    .isEqualTo("a string field of the request is not valid UTF-8");
              });
      assertThat(callRaw(channel, valid)).isNotEmpty();
      logged = everyone.records();
    }

    assertThat(logged)
        .filteredOn(
            r ->
                r.getThrown() != null
                    || r.getLevel().intValue() >= java.util.logging.Level.WARNING.intValue())
        .isEmpty();
    HttpResponse<String> metrics =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + server.adminPort() + "/metrics"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(metrics.body())
        .contains(
            "slidingwindow_server_request_errors_total{reason=\"invalid_utf8\",transport=\"grpc\"}"
                + " 1.0");
  }

  @Test
  void healthAndReflection_answerBesideTheRateLimitService() throws Exception {
    io.grpc.health.v1.HealthGrpc.HealthBlockingStub health =
        io.grpc.health.v1.HealthGrpc.newBlockingStub(channel)
            .withDeadlineAfter(10, TimeUnit.SECONDS);
    for (String service : List.of("", "envoy.service.ratelimit.v3.RateLimitService", "liveness")) {
      assertThat(
              health
                  .check(
                      io.grpc.health.v1.HealthCheckRequest.newBuilder().setService(service).build())
                  .getStatus())
          .as(service)
          .isEqualTo(io.grpc.health.v1.HealthCheckResponse.ServingStatus.SERVING);
    }

    java.util.concurrent.CompletableFuture<List<String>> listed =
        new java.util.concurrent.CompletableFuture<>();
    io.grpc.stub.StreamObserver<io.grpc.reflection.v1.ServerReflectionRequest> requests =
        io.grpc.reflection.v1.ServerReflectionGrpc.newStub(channel)
            .serverReflectionInfo(
                new io.grpc.stub.StreamObserver<>() {
                  @Override
                  public void onNext(io.grpc.reflection.v1.ServerReflectionResponse response) {
                    listed.complete(
                        response.getListServicesResponse().getServiceList().stream()
                            .map(io.grpc.reflection.v1.ServiceResponse::getName)
                            .toList());
                  }

                  @Override
                  public void onError(Throwable t) {
                    listed.completeExceptionally(t);
                  }

                  @Override
                  public void onCompleted() {}
                });
    requests.onNext(
        io.grpc.reflection.v1.ServerReflectionRequest.newBuilder().setListServices("").build());
    requests.onCompleted();

    assertThat(listed.get(10, TimeUnit.SECONDS))
        .contains("envoy.service.ratelimit.v3.RateLimitService", "grpc.health.v1.Health");
  }

  static byte[] callRaw(ManagedChannel channel, byte[] request) {
    io.grpc.MethodDescriptor.Marshaller<byte[]> bytes =
        new io.grpc.MethodDescriptor.Marshaller<>() {
          @Override
          public java.io.InputStream stream(byte[] value) {
            return new java.io.ByteArrayInputStream(value);
          }

          @Override
          public byte[] parse(java.io.InputStream stream) {
            try {
              return stream.readAllBytes();
            } catch (IOException e) {
              throw new java.io.UncheckedIOException(e);
            }
          }
        };
    io.grpc.MethodDescriptor<byte[], byte[]> method =
        io.grpc.MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
            .setFullMethodName(RateLimitServiceGrpc.getShouldRateLimitMethod().getFullMethodName())
            .setRequestMarshaller(bytes)
            .setResponseMarshaller(bytes)
            .build();
    return io.grpc.stub.ClientCalls.blockingUnaryCall(
        channel,
        method,
        io.grpc.CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
        request);
  }

  private void assertStatus(RateLimitRequest request, Status.Code code, String message) {
    assertThatThrownBy(() -> stub().shouldRateLimit(request))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(code);
              assertThat(e.getStatus().getDescription()).contains(message);
            });
  }

  static RateLimitRequest request(String key, String value) {
    return RateLimitRequest.newBuilder()
        .setDomain("api")
        .addDescriptors(descriptor(key, value))
        .build();
  }

  static RateLimitDescriptor descriptor(String... pairs) {
    RateLimitDescriptor.Builder descriptor = RateLimitDescriptor.newBuilder();
    for (int i = 0; i < pairs.length; i += 2) {
      descriptor.addEntries(
          RateLimitDescriptor.Entry.newBuilder().setKey(pairs[i]).setValue(pairs[i + 1]));
    }
    return descriptor.build();
  }
}
