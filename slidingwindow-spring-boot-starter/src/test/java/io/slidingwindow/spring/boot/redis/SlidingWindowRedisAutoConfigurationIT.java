package io.slidingwindow.spring.boot.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Plan;
import io.slidingwindow.PlanResolver;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.redis.RedisRateLimiter;
import io.slidingwindow.spring.boot.web.SlidingWindowAutoConfiguration;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

/** The Redis backend of the starter, against a real redis-server. */
class SlidingWindowRedisAutoConfigurationIT {

  private static final List<Limit> THREE_PER_MINUTE = List.of(Limit.of(3, Duration.ofMinutes(1)));
  private static final AtomicInteger RULES = new AtomicInteger();

  private static RedisServerProcess redis;

  private final WebApplicationContextRunner runner =
      new WebApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  SlidingWindowRedisAutoConfiguration.class, SlidingWindowAutoConfiguration.class));

  @BeforeAll
  static void startRedis() {
    redis = RedisServerProcess.start();
  }

  @AfterAll
  static void stopRedis() {
    redis.close();
  }

  /**
   * The shared server's properties where exact grants are counted: a command timeout of seconds, so
   * that a busy machine cannot turn a slow answer into the local fallback's grant.
   */
  private static String[] shared() {
    return new String[] {
      "slidingwindow.redis.uri=" + redis.uri(), "slidingwindow.redis.command-timeout=5s"
    };
  }

  /** Grants for one key through limiters built by the factories of two separate contexts. */
  private static int grantsAcross(RateLimiterFactory first, RateLimiterFactory second) {
    String rule = "rule-" + RULES.incrementAndGet();
    KeyedRateLimiter<String> a = first.create(rule, THREE_PER_MINUTE, false);
    KeyedRateLimiter<String> b = second.create(rule, THREE_PER_MINUTE, false);
    int granted = 0;
    for (int i = 0; i < 4; i++) {
      granted += a.tryAcquire("client") ? 1 : 0;
      granted += b.tryAcquire("client") ? 1 : 0;
    }
    return granted;
  }

  @Test
  void redisUri_rulesShareTheirWindowsAcrossInstances() {
    runner
        .withPropertyValues(shared())
        .run(
            first ->
                runner
                    .withPropertyValues(shared())
                    .run(
                        second -> {
                          assertThat(first).hasSingleBean(RedisBackend.class);
                          RateLimiterFactory a = first.getBean(RateLimiterFactory.class);
                          RateLimiterFactory b = second.getBean(RateLimiterFactory.class);
                          assertThat(a.create("probe", THREE_PER_MINUTE, false))
                              .isInstanceOf(RedisRateLimiter.class);
                          assertThat(grantsAcross(a, b)).as("3 per minute in all").isEqualTo(3);
                        }));
  }

  @Test
  void noRedisProperty_eachInstanceLimitsOnItsOwn() {
    runner.run(
        first ->
            runner.run(
                second -> {
                  assertThat(first).doesNotHaveBean(RedisBackend.class);
                  RateLimiterFactory a = first.getBean(RateLimiterFactory.class);
                  RateLimiterFactory b = second.getBean(RateLimiterFactory.class);
                  assertThat(grantsAcross(a, b)).as("3 per minute in each").isEqualTo(6);
                }));
  }

  @Test
  void redisDown_localFallbackStillLimitsEachInstance() {
    try (RedisServerProcess doomed = RedisServerProcess.start()) {
      String uri = doomed.uri();
      runner
          .withPropertyValues("slidingwindow.redis.uri=" + uri)
          .run(
              context -> {
                RateLimiterFactory factory = context.getBean(RateLimiterFactory.class);
                KeyedRateLimiter<String> limiter = factory.create("down", THREE_PER_MINUTE, false);
                doomed.kill();
                int granted = 0;
                for (int i = 0; i < 5; i++) {
                  granted += limiter.tryAcquire("client") ? 1 : 0;
                }
                assertThat(granted).as("the in-memory fallback limits to 3").isEqualTo(3);
              });
    }
  }

  /**
   * {@code on-failure} binds core's failure policy by its lower-case name: with Redis down, {@code
   * allow} grants everything, {@code refuse} nothing, and {@code local} (the default) the limit.
   */
  @Test
  void onFailure_eachPolicy_answersWhileRedisIsDown() {
    for (String policy : List.of("allow", "refuse", "local", "")) {
      try (RedisServerProcess doomed = RedisServerProcess.start()) {
        runner
            .withPropertyValues(
                "slidingwindow.redis.uri=" + doomed.uri(),
                "slidingwindow.redis.on-failure=" + policy)
            .run(
                context -> {
                  KeyedRateLimiter<String> limiter =
                      context
                          .getBean(RateLimiterFactory.class)
                          .create("policy-" + policy, THREE_PER_MINUTE, false);
                  doomed.kill();
                  int granted = 0;
                  for (int i = 0; i < 5; i++) {
                    granted += limiter.tryAcquire("client") ? 1 : 0;
                  }
                  assertThat(granted)
                      .as("grants with Redis down under on-failure '%s'", policy)
                      .isEqualTo(
                          switch (policy) {
                            case "allow" -> 5;
                            case "refuse" -> 0;
                            default -> 3;
                          });
                });
      }
    }
  }

  @Test
  void userFactory_bothBackendsBackOff() {
    RateLimiterFactory mine = RateLimiterFactory.inMemory();
    runner
        .withPropertyValues("slidingwindow.redis.uri=" + redis.uri())
        .withBean(RateLimiterFactory.class, () -> mine)
        .run(context -> assertThat(context.getBean(RateLimiterFactory.class)).isSameAs(mine));
  }

  @Test
  void twoDeploymentsAtOnce_failsAtStartNamingTheProperties() {
    runner
        .withPropertyValues(
            "slidingwindow.redis.uri=" + redis.uri(),
            "slidingwindow.redis.cluster.nodes=" + redis.uri())
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("slidingwindow.redis")
                    .hasMessageContaining("exactly one of uri, cluster.nodes and sentinel.master"));
  }

  @Test
  void refusalCacheOutOfRange_failsAtStartNamingTheProperty() {
    runner
        .withPropertyValues(
            "slidingwindow.redis.uri=" + redis.uri(), "slidingwindow.redis.refusal-cache=-1")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("slidingwindow.redis.refusal-cache"));
  }

  /**
   * A rule with plans on Redis: two instances share each key's plan window, a key on no plan gets
   * the rule's limits, and the quota operations read and reset what Redis holds.
   */
  @Test
  void plansOnRedis_sharedAcrossInstances_andPeekedAndReset() {
    PlanResolver<String> plans =
        PlanResolver.of(Map.of("pro-key", Plan.of("pro", Limit.of(5, Duration.ofMinutes(1)))));
    runner
        .withPropertyValues(shared())
        .run(
            first ->
                runner
                    .withPropertyValues(shared())
                    .run(
                        second -> {
                          String rule = "plans-" + RULES.incrementAndGet();
                          KeyedRateLimiter<String> a =
                              first
                                  .getBean(RateLimiterFactory.class)
                                  .create(rule, THREE_PER_MINUTE, false, plans);
                          KeyedRateLimiter<String> b =
                              second
                                  .getBean(RateLimiterFactory.class)
                                  .create(rule, THREE_PER_MINUTE, false, plans);
                          assertThat(a).isInstanceOf(RedisRateLimiter.class);
                          int pro = 0;
                          int none = 0;
                          for (int i = 0; i < 4; i++) {
                            pro +=
                                (a.tryAcquire("pro-key") ? 1 : 0)
                                    + (b.tryAcquire("pro-key") ? 1 : 0);
                            none +=
                                (a.tryAcquire("no-plan") ? 1 : 0)
                                    + (b.tryAcquire("no-plan") ? 1 : 0);
                          }
                          assertThat(pro).as("the pro plan, 5 per minute in all").isEqualTo(5);
                          assertThat(none).as("the rule's 3 per minute in all").isEqualTo(3);
                          assertThat(b.peek("pro-key").remaining()).isZero();
                          assertThat(b.peek("pro-key").plan()).contains("pro");
                          a.reset("pro-key");
                          assertThat(b.peek("pro-key").remaining()).isEqualTo(5);
                          assertThat(b.tryAcquire("pro-key")).isTrue();
                        }));
  }
}
