package io.slidingwindow.examples.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.http.LoopbackBackend;
import io.slidingwindow.testkit.http.RawHttp;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The example gateway as shipped (its application.yml), on a loopback port in front of a real
 * backend, in memory and with its windows in a real redis-server, driven by real HTTP from several
 * loopback addresses, each test from addresses of its own: what a client may try against it.
 */
class GatewayExampleIT {

  private static final AtomicInteger NEXT_CLIENT = new AtomicInteger(1);

  private static LoopbackBackend backend;
  private static RedisServerProcess redis;
  private static ConfigurableApplicationContext inMemory;
  private static ConfigurableApplicationContext onRedis;

  @BeforeAll
  static void start() {
    backend = LoopbackBackend.start("hello from the backend");
    redis = RedisServerProcess.start();
    inMemory = gateway();
    // Grants are counted exactly: seconds for Redis to answer, so that a busy machine cannot turn
    // a slow answer into the failure policy's.
    onRedis =
        gateway(
            "--slidingwindow.redis.uri=" + redis.uri(),
            "--slidingwindow.redis.command-timeout=5s",
            "--slidingwindow.gateway.timeout=5s");
  }

  private static ConfigurableApplicationContext gateway(String... extra) {
    List<String> args =
        new ArrayList<>(List.of("--server.port=0", "--backend.uri=" + backend.uri()));
    args.addAll(List.of(extra));
    return new SpringApplicationBuilder(GatewayExampleApplication.class)
        .run(args.toArray(new String[0]));
  }

  @AfterAll
  static void stop() {
    inMemory.close();
    onRedis.close();
    redis.close();
    backend.close();
  }

  private static int port(boolean redis) {
    return ((WebServerApplicationContext) (redis ? onRedis : inMemory)).getWebServer().getPort();
  }

  /** A loopback address no other test uses, such as 127.0.40.7. */
  private static InetAddress client() throws Exception {
    int n = NEXT_CLIENT.getAndIncrement();
    return InetAddress.getByName("127.0.40." + n);
  }

  private static RawHttp.Response get(boolean redis, InetAddress from, String... headers) {
    return RawHttp.send(from, port(redis), "GET", "/api/items", List.of(headers));
  }

  private static int granted(boolean redis, InetAddress from, int times, String... headers) {
    int granted = 0;
    for (int i = 0; i < times; i++) {
      RawHttp.Response response = get(redis, from, headers);
      assertThat(response.status()).as(response.head()).isIn(200, 429);
      granted += response.status() == 200 ? 1 : 0;
    }
    return granted;
  }

  @ParameterizedTest(name = "on Redis: {0}")
  @ValueSource(booleans = {false, true})
  void route_fivePerTenSeconds_grantsFiveThenRefusesWithHeaders(boolean redis) throws Exception {
    InetAddress client = client();
    int before = backend.hits();
    assertThat(granted(redis, client, 5)).isEqualTo(5);

    RawHttp.Response refused = get(redis, client);

    assertThat(refused.status()).isEqualTo(429);
    assertThat(refused.header("RateLimit-Policy"))
        .isEqualTo("\"api-10s\";q=5;w=10, \"api-3600s\";q=100;w=3600");
    assertThat(refused.header("RateLimit")).startsWith("\"api-10s\";r=0");
    assertThat(Long.parseLong(refused.header("Retry-After"))).isBetween(1L, 11L);
    assertThat(backend.hits() - before).as("requests that reached the backend").isEqualTo(5);
  }

  @ParameterizedTest(name = "on Redis: {0}")
  @ValueSource(booleans = {false, true})
  void route_keyOf1100Characters_getsAtMostFiveOfTwelve(boolean redis) throws Exception {
    String longKey = "k".repeat(1_100);
    assertThat(granted(redis, client(), 12, "X-Api-Key", longKey)).isEqualTo(5);
  }

  @ParameterizedTest(name = "on Redis: {0}")
  @ValueSource(booleans = {false, true})
  void route_rotatingUnissuedKeys_getNoMoreThanTheAddress(boolean redis) throws Exception {
    InetAddress client = client();
    int granted = 0;
    for (int i = 0; i < 12; i++) {
      granted += granted(redis, client, 1, "X-Api-Key", "made-up-" + UUID.randomUUID());
    }
    assertThat(granted).isEqualTo(5);
    assertThat(granted(redis, client, 1)).as("without a key: the same address").isZero();
  }

  @ParameterizedTest(name = "on Redis: {0}")
  @ValueSource(booleans = {false, true})
  void route_issuedKeys_eachHaveAQuotaOfTheirOwn(boolean redis) throws Exception {
    InetAddress client = client();
    assertThat(granted(redis, client, 6, "X-Api-Key", redis ? "demo-key-1" : "demo-key-2"))
        .isEqualTo(5);
    assertThat(granted(redis, client, 1)).as("the address's own quota").isEqualTo(1);
  }

  @ParameterizedTest(name = "on Redis: {0}")
  @ValueSource(booleans = {false, true})
  void route_keyOnPro_getsTwentyOfTwentyFiveAndIsToldPros(boolean redis) throws Exception {
    InetAddress client = client();
    RawHttp.Response first = get(redis, client, "X-Api-Key", "demo-key-3");

    assertThat(first.status()).isEqualTo(200);
    assertThat(first.header("RateLimit-Policy")).isEqualTo("\"api\";q=20;w=10");
    assertThat(granted(redis, client, 24, "X-Api-Key", "demo-key-3")).isEqualTo(19);
    assertThat(granted(redis, client, 6, "X-Api-Key", "made-up-pro"))
        .as("an unissued key: the address's own 5")
        .isEqualTo(5);
  }

  @ParameterizedTest(name = "on Redis: {0}")
  @ValueSource(booleans = {false, true})
  void route_forwardedHeaders_cannotNameOtherClients(boolean redis) throws Exception {
    InetAddress attacker = client();
    InetAddress victim = client();
    String[][] forged = {
      {"X-Forwarded-For", victim.getHostAddress()},
      {"X-Forwarded-For", "198.51.100.1"},
      {"Forwarded", "for=" + victim.getHostAddress()},
      {"X-Real-IP", victim.getHostAddress()},
    };
    int granted = 0;
    for (int i = 0; i < 3; i++) {
      for (String[] header : forged) {
        granted += granted(redis, attacker, 1, header[0], header[1]);
      }
    }
    assertThat(granted).as("the attacker's own 5, however it names itself").isEqualTo(5);
    assertThat(granted(redis, victim, 5)).as("the victim's whole quota").isEqualTo(5);
  }
}
