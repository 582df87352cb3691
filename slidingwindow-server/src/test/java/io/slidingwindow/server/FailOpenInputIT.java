package io.slidingwindow.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.slidingwindow.server.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitRequest;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitResponse;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
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
 * Values a client puts in a header that Envoy passes on as a descriptor value. Envoy lets a request
 * through when the service answers with an error (its {@code failure_mode_deny} is false by
 * default), so a value the service refused with INVALID_ARGUMENT would take the whole request past
 * every limit, the per-address one of its other descriptor too, and count nothing.
 */
class FailOpenInputIT {

  private static final String CONFIG =
      """
      domain: edge
      descriptors:
        - key: remote_address
          rate_limit:
            unit: minute
            requests_per_unit: 2
        - key: api_key
          rate_limit:
            unit: minute
            requests_per_unit: 1
      """;

  @TempDir Path dir;
  private final FakeTicker ticker = new FakeTicker();
  private RateLimitServer server;
  private ManagedChannel channel;

  @BeforeEach
  void start() throws IOException, ConfigException {
    start(b -> b.ticker(ticker));
  }

  private void start(java.util.function.UnaryOperator<RateLimitServer.Builder> store)
      throws IOException, ConfigException {
    Path config = dir.resolve("edge.yaml");
    Files.writeString(config, CONFIG);
    server =
        store
            .apply(RateLimitServer.builder())
            .config(config)
            .host("127.0.0.1")
            .grpcPort(0)
            .httpPort(0)
            .adminPort(0)
            .reloadInterval(Duration.ZERO)
            .start();
    channel = NettyChannelBuilder.forAddress("127.0.0.1", server.grpcPort()).usePlaintext().build();
  }

  @AfterEach
  void stop() throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    server.close();
  }

  private static RateLimitDescriptor descriptor(String key, String value) {
    return RateLimitDescriptor.newBuilder()
        .addEntries(RateLimitDescriptor.Entry.newBuilder().setKey(key).setValue(value))
        .build();
  }

  private static RateLimitRequest request(String apiKey) {
    return RateLimitRequest.newBuilder()
        .setDomain("edge")
        .addDescriptors(descriptor("remote_address", "203.0.113.9"))
        .addDescriptors(descriptor("api_key", apiKey))
        .build();
  }

  private RateLimitResponse call(RateLimitRequest request) {
    return RateLimitServiceGrpc.newBlockingStub(channel)
        .withDeadlineAfter(10, TimeUnit.SECONDS)
        .shouldRateLimit(request);
  }

  /** Sends {@code bytes} as the request message, unchanged. */
  private RateLimitResponse callRaw(byte[] bytes) {
    MethodDescriptor<byte[], RateLimitResponse> method =
        RateLimitServiceGrpc.getShouldRateLimitMethod().toBuilder(
                new MethodDescriptor.Marshaller<byte[]>() {
                  @Override
                  public InputStream stream(byte[] value) {
                    return new ByteArrayInputStream(value);
                  }

                  @Override
                  public byte[] parse(InputStream stream) {
                    try {
                      return stream.readAllBytes();
                    } catch (IOException e) {
                      throw new UncheckedIOException(e);
                    }
                  }
                },
                io.grpc.protobuf.ProtoUtils.marshaller(RateLimitResponse.getDefaultInstance()))
            .build();
    return ClientCalls.blockingUnaryCall(
        channel, method, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), bytes);
  }

  /** {@code request}'s bytes with the UTF-8 of {@code marker} replaced by {@code raw}. */
  private static byte[] withRawValue(RateLimitRequest request, String marker, byte[] raw) {
    byte[] bytes = request.toByteArray();
    byte[] find = marker.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    assertThat(raw).hasSameSizeAs(find); // no length prefix changes
    outer:
    for (int i = 0; i + find.length <= bytes.length; i++) {
      for (int j = 0; j < find.length; j++) {
        if (bytes[i + j] != find[j]) {
          continue outer;
        }
      }
      System.arraycopy(raw, 0, bytes, i, raw.length);
      return bytes;
    }
    throw new AssertionError("marker not found");
  }

  @Test
  void shouldRateLimit_aValueOver4096Characters_isDecidedAndCounted_notRefusedAsInvalid() {
    longValueCounted();
  }

  @Test
  void shouldRateLimit_aValueThatIsNotUtf8_isDecidedAndCountedByItsBytes() {
    notUtf8Counted();
  }

  /** On Redis too: a key holding the value's digest, or its lone surrogate, is keyed apart. */
  @Test
  void shouldRateLimit_onRedis_longAndNotUtf8ValuesCountedByTheirBytes() throws Exception {
    stop();
    try (RedisServerProcess redis = RedisServerProcess.start()) {
      start(b -> b.redis(redis.uri()).redisCommandTimeout(Duration.ofSeconds(5)));
      longValueCounted();
      stop();
      redis.cli("FLUSHALL");
      start(b -> b.redis(redis.uri()).redisCommandTimeout(Duration.ofSeconds(5)));
      notUtf8Counted();
      stop();
    }
    start(); // for the stop after each test
  }

  /**
   * The admin port names such values too: a long one in full, one that is not UTF-8 by its escaped
   * bytes in value_bytes; an override then counts the very key that decisions count.
   */
  @Test
  void override_aValueThatIsNotUtf8_namedByItsEscapedBytes_raisesItsLimit() throws Exception {
    byte[] ff = withRawValue(request("MARK"), "MARK", new byte[] {'k', (byte) 0xff, 'e', 'y'});
    assertThat(callRaw(ff).getStatuses(1).getCode()).isEqualTo(Code.OK);
    assertThat(callRaw(ff).getStatuses(1).getCode()).isEqualTo(Code.OVER_LIMIT);

    HttpResponse<String> set =
        admin("PUT", "/v1/overrides", override("\"value_bytes\":\"k\\\\xffey\""));

    assertThat(set.statusCode()).as(set.body()).isEqualTo(200);
    assertThat(set.body()).contains("\"value_bytes\":\"k\\\\xffey\"");
    assertThat(callRaw(ff).getStatuses(1).getCode()).isEqualTo(Code.OK);
    assertThat(admin("GET", "/v1/overrides", null).body())
        .contains("\"value_bytes\":\"k\\\\xffey\"");
    // The text of the same letters with U+00FF is another value, which the override leaves alone.
    assertThat(call(request("k\u00ffey")).getStatuses(1).getCode()).isEqualTo(Code.OK);
    assertThat(call(request("k\u00ffey")).getStatuses(1).getCode()).isEqualTo(Code.OVER_LIMIT);
  }

  @Test
  void override_aValueOver4096Characters_namedInFull_raisesItsLimit() throws Exception {
    String longKey = "k".repeat(5000);
    assertThat(call(request(longKey)).getStatuses(1).getCode()).isEqualTo(Code.OK);
    assertThat(call(request(longKey)).getStatuses(1).getCode()).isEqualTo(Code.OVER_LIMIT);

    HttpResponse<String> set =
        admin("PUT", "/v1/overrides", override("\"value\":\"" + longKey + "\""));

    assertThat(set.statusCode()).as(set.body()).isEqualTo(200);
    assertThat(call(request(longKey)).getStatuses(1).getCode()).isEqualTo(Code.OK);
  }

  private static String override(String value) {
    return "{\"domain\":\"edge\",\"entries\":[{\"key\":\"api_key\","
        + value
        + "}],\"limits\":[\"5/1m\"]}";
  }

  private HttpResponse<String> admin(String method, String path, String body) throws Exception {
    HttpRequest.Builder request = TestServers.jsonRequest(server.adminPort(), method, path, body);
    return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private void longValueCounted() {
    String longKey = "k".repeat(5000);

    RateLimitResponse first = call(request(longKey));
    RateLimitResponse second = call(request(longKey));
    RateLimitResponse other = call(request("k".repeat(4999) + "j"));

    assertThat(first.getOverallCode()).isEqualTo(Code.OK);
    assertThat(second.getStatuses(0).getCode()).isEqualTo(Code.OK);
    assertThat(second.getStatuses(1).getCode()).isEqualTo(Code.OVER_LIMIT);
    // The address's count saw all three: the third is its third within the minute.
    assertThat(other.getStatuses(0).getCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(other.getStatuses(1).getCode()).isEqualTo(Code.OK);
  }

  private void notUtf8Counted() {
    RateLimitRequest template = request("MARK");
    byte[] ff = withRawValue(template, "MARK", new byte[] {'k', (byte) 0xff, 'e', 'y'});
    byte[] fe = withRawValue(template, "MARK", new byte[] {'k', (byte) 0xfe, 'e', 'y'});

    RateLimitResponse first = callRaw(ff);
    RateLimitResponse again = callRaw(ff);
    RateLimitResponse other = callRaw(fe);

    assertThat(first.getOverallCode()).isEqualTo(Code.OK);
    assertThat(again.getStatuses(0).getCode()).isEqualTo(Code.OK);
    assertThat(again.getStatuses(1).getCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(other.getStatuses(0).getCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(other.getStatuses(1).getCode()).isEqualTo(Code.OK);
    // Nor is it counted as the text "k?ey" or "k\uFFFDey" that a lenient reading would make.
    assertThat(call(request("k\uFFFDey")).getStatuses(1).getCode()).isEqualTo(Code.OK);
  }
}
