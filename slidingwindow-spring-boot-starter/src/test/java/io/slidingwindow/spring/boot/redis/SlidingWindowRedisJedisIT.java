package io.slidingwindow.spring.boot.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.redis.RedisRateLimiter;
import io.slidingwindow.redis.jedis.JedisBackends;
import io.slidingwindow.redis.lettuce.LettuceBackends;
import io.slidingwindow.spring.boot.web.SlidingWindowAutoConfiguration;
import io.slidingwindow.testkit.redis.RedisClusterProcesses;
import io.slidingwindow.testkit.redis.RedisSentinelProcesses;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Applications whose Spring Data Redis runs on Jedis ({@code spring.data.redis.client-type=jedis}),
 * against real servers: the limits live in the application's Redis, through its own pool and {@code
 * slidingwindow-redis-jedis}, so two instances share them; the start-up line names the connection
 * and the client; a wrong password, a missing adapter or an unknown connection factory stops the
 * start with a message that says what to do, and nothing falls back to memory.
 */
@ExtendWith(OutputCaptureExtension.class)
class SlidingWindowRedisJedisIT {

  private static final List<Limit> THREE_PER_MINUTE = List.of(Limit.of(3, Duration.ofMinutes(1)));
  private static final AtomicInteger RULES = new AtomicInteger();

  private static RedisServerProcess redis;

  private final WebApplicationContextRunner runner =
      new WebApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  RedisAutoConfiguration.class,
                  SlidingWindowRedisAutoConfiguration.class,
                  SlidingWindowAutoConfiguration.class,
                  SlidingWindowBackendReportAutoConfiguration.class))
          .withPropertyValues(
              "spring.data.redis.client-type=jedis", "slidingwindow.redis.command-timeout=2s");

  @BeforeAll
  static void startRedis() {
    redis = RedisServerProcess.start();
  }

  @AfterAll
  static void stopRedis() {
    redis.close();
  }

  /** Four tries of one id on a fresh rule of the context's factory; how many were granted. */
  private static int grants(ApplicationContext context) {
    KeyedRateLimiter<String> limiter =
        context
            .getBean(RateLimiterFactory.class)
            .create("jedis-" + RULES.incrementAndGet(), THREE_PER_MINUTE, false);
    assertThat(limiter).isInstanceOf(RedisRateLimiter.class);
    int granted = 0;
    for (int i = 0; i < 4; i++) {
      granted += limiter.tryAcquire("client") ? 1 : 0;
    }
    return granted;
  }

  private static long dbsize(RedisServerProcess server, String... auth) {
    List<String> args = new ArrayList<>(List.of(auth));
    args.add("DBSIZE");
    return Long.parseLong(server.cli(args.toArray(String[]::new)));
  }

  @Test
  void springDataRedisOnJedis_limitsLiveInTheApplicationsRedisThroughItsPool(
      CapturedOutput output) {
    redis.cli("FLUSHALL");
    runner
        .withPropertyValues(
            "spring.data.redis.host=127.0.0.1",
            "spring.data.redis.port=" + redis.port(),
            "spring.data.redis.client-name=jedis-app")
        .run(
            context -> {
              assertThat(context).hasNotFailed().hasSingleBean(RedisBackend.class);
              assertThat(context.getBean(RedisConnectionFactory.class))
                  .isInstanceOf(JedisConnectionFactory.class);
              assertThat(grants(context)).isEqualTo(3);
              assertThat(dbsize(redis)).as("keys in the application's Redis").isPositive();
              assertThat(redis.cli("CLIENT", "LIST"))
                  .as("the limiter's calls on the application's connections")
                  .contains("name=jedis-app");
            });
    assertThat(output)
        .contains(
            "slidingwindow: rate limits in Redis through the application's spring.data.redis"
                + " connection (standalone 127.0.0.1:"
                + redis.port()
                + ") over Jedis")
        .doesNotContain("rate limits in memory");
  }

  @Test
  void springDataRedisOnJedisWithPassword_usedAndMaskedInTheLog(CapturedOutput output) {
    try (RedisServerProcess guarded = RedisServerProcess.start()) {
      guarded.cli("CONFIG", "SET", "requirepass", "pw-9q1x");
      runner
          .withPropertyValues(
              "spring.data.redis.url=redis://default:pw-9q1x@127.0.0.1:" + guarded.port())
          .run(
              context -> {
                assertThat(context).hasNotFailed();
                assertThat(grants(context)).isEqualTo(3);
                assertThat(dbsize(guarded, "-a", "pw-9q1x", "--no-auth-warning")).isPositive();
              });
      assertThat(output)
          .contains("(standalone 127.0.0.1:" + guarded.port() + ", user default, password ***)")
          .doesNotContain("pw-9q1x");
    }
  }

  @Test
  void springDataRedisOnJedisWrongPassword_failsAtStartNamingTheCauseWithoutThePassword() {
    try (RedisServerProcess guarded = RedisServerProcess.start()) {
      guarded.cli("CONFIG", "SET", "requirepass", "right-pw");
      runner
          .withPropertyValues(
              "spring.data.redis.port=" + guarded.port(), "spring.data.redis.password=wrong-pw")
          .run(
              context ->
                  assertThat(context)
                      .hasFailed()
                      .getFailure()
                      .hasStackTraceContaining(
                          "slidingwindow: cannot reach Redis through the application's"
                              + " spring.data.redis connection (standalone localhost:"
                              + guarded.port()
                              + ", password ***)")
                      .hasStackTraceContaining("refuses the credentials")
                      .satisfies(
                          failure -> assertThat(stackTrace(failure)).doesNotContain("wrong-pw")));
    }
  }

  @Test
  void springDataRedisOnJedisSentinel_limitsLiveInTheMaster(CapturedOutput output) {
    try (RedisSentinelProcesses group = RedisSentinelProcesses.start("orders", 0, 1)) {
      RedisServerProcess sentinel = group.sentinels().get(0);
      runner
          .withPropertyValues(
              "spring.data.redis.sentinel.master=orders",
              "spring.data.redis.sentinel.nodes=127.0.0.1:" + sentinel.port())
          .run(
              context -> {
                assertThat(context).hasNotFailed();
                assertThat(grants(context)).isEqualTo(3);
                assertThat(dbsize(group.master())).as("keys in the master").isPositive();
              });
      assertThat(output)
          .contains(
              "through the application's spring.data.redis connection (sentinel master orders via"
                  + " [127.0.0.1:"
                  + sentinel.port()
                  + "]) over Jedis");
    }
  }

  @Test
  void springDataRedisOnJedisCluster_limitsLiveInTheCluster(CapturedOutput output) {
    try (RedisClusterProcesses cluster = RedisClusterProcesses.start(3, 0)) {
      RedisServerProcess seed = cluster.nodes().get(0);
      runner
          .withPropertyValues("spring.data.redis.cluster.nodes=127.0.0.1:" + seed.port())
          .run(
              context -> {
                assertThat(context).hasNotFailed();
                for (int i = 0; i < 5; i++) {
                  assertThat(grants(context)).as("rule %d", i).isEqualTo(3);
                }
                long keys = 0;
                for (RedisServerProcess master : cluster.masters()) {
                  keys += dbsize(master);
                }
                assertThat(keys).as("keys on the cluster's masters").isPositive();
              });
      assertThat(output)
          .contains(
              "through the application's spring.data.redis connection (cluster [127.0.0.1:"
                  + seed.port()
                  + "]) over Jedis");
    }
  }

  @Test
  void springDataRedisOnJedisWithoutTheJedisAdapter_failsAtStartSayingWhatToAdd() {
    runner
        .withClassLoader(new FilteredClassLoader(JedisBackends.class))
        .withPropertyValues("spring.data.redis.port=" + redis.port())
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .hasStackTraceContaining(
                        "the application's spring.data.redis connection runs on Jedis, but"
                            + " io.slidingwindow:slidingwindow-redis-jedis is not on the class"
                            + " path; add it"));
  }

  @Test
  void springDataRedisOnLettuceWithOnlyTheJedisAdapter_failsAtStartSayingWhatToDo() {
    new WebApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                RedisAutoConfiguration.class,
                SlidingWindowRedisAutoConfiguration.class,
                SlidingWindowAutoConfiguration.class))
        .withClassLoader(new FilteredClassLoader(LettuceBackends.class))
        .withPropertyValues("spring.data.redis.port=" + redis.port())
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .hasStackTraceContaining(
                        "runs on Lettuce, but io.slidingwindow:slidingwindow-redis-lettuce is not"
                            + " on the class path")
                    .hasStackTraceContaining("spring.data.redis.client-type=jedis"));
  }

  @Test
  void connectionFactoryOfAnotherKind_failsAtStartSayingWhatToDo() {
    new WebApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                SlidingWindowRedisAutoConfiguration.class, SlidingWindowAutoConfiguration.class))
        .withBean(RedisConnectionFactory.class, () -> mock(RedisConnectionFactory.class))
        .withPropertyValues("spring.data.redis.port=" + redis.port())
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .hasStackTraceContaining("which the rate limiter cannot run on")
                    .hasStackTraceContaining("slidingwindow.redis.uri")
                    .hasStackTraceContaining("application-connection=false"));
  }

  @Test
  void ownDeploymentWithOnlyTheJedisAdapter_usesAJedisClientOfItsOwn(CapturedOutput output) {
    redis.cli("FLUSHALL");
    runner
        .withClassLoader(new FilteredClassLoader(LettuceBackends.class))
        .withPropertyValues("slidingwindow.redis.uri=" + redis.uri())
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(grants(context)).isEqualTo(3);
              assertThat(dbsize(redis)).isPositive();
            });
    assertThat(output)
        .contains(
            "slidingwindow: rate limits in Redis through slidingwindow.redis.uri "
                + redis.uri()
                + " over Jedis");
  }

  /** A web application with one rate-limited endpoint. */
  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  @Import(JedisApp.Hello.class)
  static class JedisApp {

    @RestController
    static class Hello {
      @GetMapping("/hello")
      String hello() {
        return "hello";
      }
    }
  }

  private static ConfigurableApplicationContext startApp(RedisServerProcess server) {
    return new SpringApplicationBuilder(JedisApp.class)
        .properties(
            Map.of(
                "server.address", "127.0.0.1",
                "server.port", "0",
                "spring.data.redis.client-type", "jedis",
                "spring.data.redis.port", Integer.toString(server.port()),
                "management.endpoint.health.show-details", "always",
                "management.endpoints.web.exposure.include", "health",
                "slidingwindow.http.rules.hello.paths", "/hello",
                "slidingwindow.http.rules.hello.limits[0].permits", "3",
                "slidingwindow.http.rules.hello.limits[0].window", "1m"))
        .run();
  }

  /**
   * Two instances of a whole application on Spring Data Redis over Jedis, driven over HTTP: they
   * share the rule's 3 per minute through the application's Redis (an instance counting alone would
   * grant 3 more), and the health indicator probes that Redis.
   */
  @Test
  void twoInstancesOnJedis_overHttp_shareOneLimit(CapturedOutput output) throws Exception {
    try (RedisServerProcess server = RedisServerProcess.start();
        ConfigurableApplicationContext first = startApp(server);
        ConfigurableApplicationContext second = startApp(server)) {
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      List<Integer> statuses = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        statuses.add(get(http, base(i % 2 == 0 ? first : second) + "/hello").statusCode());
      }
      assertThat(statuses).containsExactly(200, 200, 200, 429, 429, 429);
      assertThat(Long.parseLong(server.cli("DBSIZE"))).as("keys in spring.data.redis").isPositive();
      HttpResponse<String> health = get(http, base(second) + "/actuator/health/slidingwindow");
      assertThat(health.statusCode()).isEqualTo(200);
      assertThat(health.body()).contains("\"status\":\"UP\"");
    }
    assertThat(output)
        .contains("connection (standalone localhost:")
        .contains(") over Jedis")
        .doesNotContain("rate limits in memory");
  }

  private static String base(ConfigurableApplicationContext app) {
    return "http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port");
  }

  private static HttpResponse<String> get(HttpClient http, String uri) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(10)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static String stackTrace(Throwable failure) {
    java.io.StringWriter text = new java.io.StringWriter();
    failure.printStackTrace(new java.io.PrintWriter(text));
    return text.toString();
  }
}
