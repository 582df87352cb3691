package io.slidingwindow.spring.boot.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.spring.RateLimitExceededException;
import io.slidingwindow.spring.boot.redis.SlidingWindowRedisAutoConfiguration;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@code @RateLimit} on bean methods with the Redis backend, against a real server. */
class SlidingWindowAopRedisIT {

  private static RedisServerProcess redis;

  @BeforeAll
  static void startRedis() {
    redis = RedisServerProcess.start();
  }

  @AfterAll
  static void stopRedis() {
    redis.close();
  }

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  SlidingWindowRedisAutoConfiguration.class,
                  SlidingWindowAopAutoConfiguration.class))
          .withBean(Greetings.class)
          .withPropertyValues(
              "slidingwindow.redis.uri=" + redis.uri(),
              // a loaded machine must not time out into the failure policy, which decides alone
              "slidingwindow.redis.command-timeout=5s");

  @Test
  void twoInstances_shareEachMethodsWindowInRedis_plainAndReactive() {
    runner.run(
        first ->
            runner.run(
                second -> {
                  assertThat(first).hasSingleBean(RedisBackend.class);
                  Greetings a = first.getBean(Greetings.class);
                  Greetings b = second.getBean(Greetings.class);
                  assertThat(a.greet("ann")).isEqualTo("hello ann");
                  assertThat(b.greet("ann")).isEqualTo("hello ann");
                  assertThatThrownBy(() -> a.greet("ann"))
                      .isInstanceOf(RateLimitExceededException.class);
                  assertThatThrownBy(() -> b.greet("ann"))
                      .isInstanceOf(RateLimitExceededException.class);

                  assertThat(a.greetLater("ann").block()).isEqualTo("hello ann");
                  assertThat(b.greetLater("ann").block()).isEqualTo("hello ann");
                  assertThat(a.greetLater("ann").block()).startsWith("later, ann");
                  assertThat(b.greetLater("bob").block()).isEqualTo("hello bob");
                }));
  }
}
