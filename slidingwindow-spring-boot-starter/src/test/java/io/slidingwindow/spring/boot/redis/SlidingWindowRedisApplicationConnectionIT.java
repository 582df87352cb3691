package io.slidingwindow.spring.boot.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.redis.RedisRateLimiter;
import io.slidingwindow.redis.lettuce.LettuceBackends;
import io.slidingwindow.spring.boot.web.SlidingWindowAutoConfiguration;
import io.slidingwindow.testkit.redis.RedisClusterProcesses;
import io.slidingwindow.testkit.redis.RedisSentinelProcesses;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;

/**
 * The limiter on the application's own Spring Data Redis connection ({@code spring.data.redis.*}),
 * against real redis-server processes: which Redis wins, what the start-up log says, and that the
 * limits land in that Redis.
 */
@ExtendWith(OutputCaptureExtension.class)
class SlidingWindowRedisApplicationConnectionIT {

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
          // Every grant counted here must come from Redis, not from a timed-out call's fallback,
          // also on a loaded machine.
          .withPropertyValues("slidingwindow.redis.command-timeout=2s");

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
            .create("app-" + RULES.incrementAndGet(), THREE_PER_MINUTE, false);
    assertThat(limiter).isInstanceOf(RedisRateLimiter.class);
    int granted = 0;
    for (int i = 0; i < 4; i++) {
      granted += limiter.tryAcquire("client") ? 1 : 0;
    }
    return granted;
  }

  private static long dbsize(RedisServerProcess server, String... auth) {
    String[] args = new String[auth.length + 1];
    System.arraycopy(auth, 0, args, 0, auth.length);
    args[auth.length] = "DBSIZE";
    return Long.parseLong(server.cli(args));
  }

  @Test
  void springDataRedisHostAndPort_limitsLiveInTheApplicationsRedisThroughItsClient(
      CapturedOutput output) {
    redis.cli("FLUSHALL");
    runner
        .withPropertyValues(
            "spring.data.redis.host=127.0.0.1",
            "spring.data.redis.port=" + redis.port(),
            "spring.data.redis.client-name=orders-app")
        .run(
            context -> {
              assertThat(context).hasNotFailed().hasSingleBean(RedisBackend.class);
              assertThat(grants(context)).isEqualTo(3);
              assertThat(dbsize(redis)).as("keys in the application's Redis").isPositive();
              // The limiter's connection comes from the application's client, with its settings.
              assertThat(redis.cli("CLIENT", "LIST")).contains("name=orders-app");
            });
    assertThat(output)
        .contains(
            "slidingwindow: rate limits in Redis through the application's spring.data.redis"
                + " connection (standalone 127.0.0.1:"
                + redis.port()
                + ")");
  }

  @Test
  void springDataRedisPassword_usedAndMaskedInTheLog(CapturedOutput output) {
    try (RedisServerProcess guarded = RedisServerProcess.start()) {
      guarded.cli("CONFIG", "SET", "requirepass", "pw-7f3k2");
      runner
          .withPropertyValues(
              "spring.data.redis.url=redis://default:pw-7f3k2@127.0.0.1:" + guarded.port())
          .run(
              context -> {
                assertThat(context).hasNotFailed();
                assertThat(grants(context)).isEqualTo(3);
                assertThat(dbsize(guarded, "-a", "pw-7f3k2", "--no-auth-warning")).isPositive();
              });
      assertThat(output)
          .contains("(standalone 127.0.0.1:" + guarded.port() + ", user default, password ***)")
          .doesNotContain("pw-7f3k2");
    }
  }

  @Test
  void springDataRedisWrongPassword_failsAtStartNamingTheCauseWithoutThePassword() {
    try (RedisServerProcess guarded = RedisServerProcess.start()) {
      guarded.cli("CONFIG", "SET", "requirepass", "right-pw");
      runner
          .withPropertyValues(
              "spring.data.redis.host=127.0.0.1",
              "spring.data.redis.port=" + guarded.port(),
              "spring.data.redis.password=wrong-pw")
          .run(
              context ->
                  assertThat(context)
                      .hasFailed()
                      .getFailure()
                      .hasStackTraceContaining(
                          "slidingwindow: cannot reach Redis through the application's"
                              + " spring.data.redis connection (standalone 127.0.0.1:"
                              + guarded.port()
                              + ", password ***)")
                      .hasStackTraceContaining("refuses the credentials")
                      .hasStackTraceContaining("WRONGPASS")
                      .satisfies(
                          failure -> assertThat(stackTrace(failure)).doesNotContain("wrong-pw")));
    }
  }

  private static String stackTrace(Throwable failure) {
    java.io.StringWriter text = new java.io.StringWriter();
    failure.printStackTrace(new java.io.PrintWriter(text));
    return text.toString();
  }

  @Test
  void slidingWindowRedisUri_winsOverSpringDataRedis(CapturedOutput output) {
    redis.cli("FLUSHALL");
    try (RedisServerProcess other = RedisServerProcess.start()) {
      runner
          .withPropertyValues(
              "spring.data.redis.port=" + other.port(), "slidingwindow.redis.uri=" + redis.uri())
          .run(
              context -> {
                assertThat(grants(context)).isEqualTo(3);
                assertThat(dbsize(redis)).as("keys in slidingwindow.redis.uri").isPositive();
                assertThat(dbsize(other)).as("keys in spring.data.redis").isZero();
              });
    }
    assertThat(output)
        .contains(
            "slidingwindow: rate limits in Redis through slidingwindow.redis.uri " + redis.uri());
  }

  @Test
  void applicationConnectionFalse_staysInMemoryAndSaysSo(CapturedOutput output) {
    runner
        .withPropertyValues(
            "spring.data.redis.port=" + redis.port(),
            "slidingwindow.redis.application-connection=false")
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisBackend.class));
    assertThat(output)
        .contains(
            "slidingwindow: rate limits in memory: slidingwindow.redis.application-connection is"
                + " false");
  }

  @Test
  void noSpringDataRedisProperty_staysInMemoryAndSaysHowToUseTheApplicationsRedis(
      CapturedOutput output) {
    runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisBackend.class));
    assertThat(output)
        .contains("slidingwindow: rate limits in memory: no slidingwindow.redis uri")
        .contains("slidingwindow.redis.application-connection=true");
  }

  @Test
  void springDataRedisWithoutSpringDataRedisAutoConfiguration_warnsThatItStaysInMemory(
      CapturedOutput output) {
    new WebApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                SlidingWindowRedisAutoConfiguration.class,
                SlidingWindowAutoConfiguration.class,
                SlidingWindowBackendReportAutoConfiguration.class))
        .withPropertyValues("spring.data.redis.port=" + redis.port())
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisBackend.class));
    assertThat(output)
        .contains("WARN")
        .contains(
            "slidingwindow: rate limits in memory: spring.data.redis is set, but the application"
                + " has no Spring Data Redis connection factory");
  }

  @Test
  void springDataRedisSentinel_limitsLiveInTheMaster(CapturedOutput output) {
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
                  + "])");
    }
  }

  @Test
  void springDataRedisCluster_limitsLiveInTheCluster(CapturedOutput output) {
    try (RedisClusterProcesses cluster = RedisClusterProcesses.start(3, 0)) {
      RedisServerProcess seed = cluster.nodes().get(0);
      runner
          .withPropertyValues("spring.data.redis.cluster.nodes=127.0.0.1:" + seed.port())
          .run(
              context -> {
                assertThat(context).hasNotFailed();
                assertThat(grants(context)).isEqualTo(3);
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
                  + "])");
    }
  }

  @Test
  void userRedisBackend_usedWithoutPropertiesAndNamedInTheLog(CapturedOutput output) {
    redis.cli("FLUSHALL");
    runner
        .withBean(
            "ordersRedis",
            RedisBackend.class,
            () -> LettuceBackends.standalone(redis.uri()),
            definition -> definition.setDestroyMethodName("close"))
        .run(
            context -> {
              assertThat(grants(context)).isEqualTo(3);
              assertThat(dbsize(redis)).isPositive();
            });
    assertThat(output)
        .contains(
            "slidingwindow: rate limits in Redis through the application's RedisBackend bean"
                + " 'ordersRedis'");
  }
}
