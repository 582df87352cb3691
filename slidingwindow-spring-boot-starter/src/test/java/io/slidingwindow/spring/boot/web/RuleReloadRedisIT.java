package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Limit;
import io.slidingwindow.servlet.RateLimitEnforcer;
import io.slidingwindow.spring.boot.internal.SlidingWindowRedisLimiters;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Reloading rules whose limiters live in a real redis-server: a reload that replaces a rule's
 * limiter lets the old one go, so the limiters held (and counted by the health indicator) stay one
 * per rule however often the configuration is refreshed.
 */
@SpringBootTest(
    classes = RuleReloadRedisIT.App.class,
    properties = {
      "slidingwindow.http.rules.api.paths=/api/**",
      "slidingwindow.http.rules.api.limits[0].permits=3",
      "slidingwindow.http.rules.api.limits[0].window=1m",
    })
class RuleReloadRedisIT {

  private static final RedisServerProcess REDIS = RedisServerProcess.start();

  @SpringBootApplication
  static class App {}

  @DynamicPropertySource
  static void redis(DynamicPropertyRegistry registry) {
    registry.add("slidingwindow.redis.uri", REDIS::uri);
    // a loaded machine must not time out into the failure policy, which decides alone
    registry.add("slidingwindow.redis.command-timeout", () -> "5s");
  }

  @AfterAll
  static void stopRedis() {
    REDIS.close();
  }

  @Autowired ConfigurableApplicationContext context;
  @Autowired SlidingWindowRedisLimiters limiters;
  @Autowired ReloadableRules<RateLimitEnforcer> rules;

  private void change(String source, Map<String, Object> values) {
    context.getEnvironment().getPropertySources().addFirst(new MapPropertySource(source, values));
    context.publishEvent(new EnvironmentChangeEvent(context, values.keySet()));
  }

  @Test
  void reload_changedLimits_letsTheOldRedisLimiterGo() {
    assertThat(limiters.count()).isOne();
    for (int permits = 4; permits < 9; permits++) {
      Map<String, Object> bad =
          Map.of(
              "slidingwindow.http.rules.extra.paths", "/extra/**",
              "slidingwindow.http.rules.extra.limits[0].permits", 5,
              "slidingwindow.http.rules.extra.limits[0].window", "1m",
              "slidingwindow.http.rules.extra.limits[1].permits", -1,
              "slidingwindow.http.rules.extra.limits[1].window", "1s");
      change("bad", bad);
      assertThat(limiters.count()).as("a build that failed holds nothing").isOne();
      context.getEnvironment().getPropertySources().remove("bad");
      change(
          "reload-" + permits,
          Map.of(
              "slidingwindow.http.rules.api.limits[0].permits",
              permits,
              "slidingwindow.http.rules.api.limits[0].window",
              "1m"));
      assertThat(limiters.count()).as("the new limiter, not the old as well").isOne();
    }

    assertThat(rules.get().rules().get(0).limits())
        .as("the last reload is in service")
        .containsExactly(Limit.of(8, Duration.ofMinutes(1)));
    assertThat(limiters.count()).as("one limiter per rule after ten reloads").isOne();
  }
}
