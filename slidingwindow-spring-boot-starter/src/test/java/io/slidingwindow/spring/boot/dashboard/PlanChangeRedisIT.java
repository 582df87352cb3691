package io.slidingwindow.spring.boot.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.redis.RedisRateLimiter;
import io.slidingwindow.spring.boot.internal.RulesInService;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * {@link PlanChangeScenarios} with the counts in a real Redis server: the limiter sends each key's
 * plan with every call, and a limit's Redis key is named by its window and precision, so a change
 * of a plan's permits keeps the counts there too.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = PlanChangeRedisIT.App.class,
    properties = {"spring.main.web-application-type=servlet"})
// Named here too, so that the scans of other tests' applications leave this one's App out.
@ExtendWith(OutputCaptureExtension.class)
class PlanChangeRedisIT extends PlanChangeScenarios {

  private static final RedisServerProcess REDIS = RedisServerProcess.start();

  @SpringBootApplication
  @Import({PlanChangeScenarios.Plans.class, PlanChangeScenarios.Api.class})
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

  @Autowired ObjectProvider<RulesInService> rules;

  @Test
  void rule_livesInRedis() {
    assertThat(rules.orderedStream().flatMap(r -> r.limiter("api").stream()).findFirst())
        .get()
        .isInstanceOf(RedisRateLimiter.class);
  }
}
