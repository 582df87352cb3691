package io.slidingwindow.server.redis;

import static io.slidingwindow.server.decide.TestRequest.descriptor;
import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.server.config.Configs;
import io.slidingwindow.server.config.TimeUnitName;
import io.slidingwindow.server.decide.Decider;
import io.slidingwindow.server.decide.Decisions.Code;
import io.slidingwindow.server.decide.Decisions.Verdict;
import io.slidingwindow.server.decide.TestRequest;
import io.slidingwindow.server.settings.Settings;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A descriptor's own limit answers by its domain's failure policy of the configuration loaded now,
 * as configured rules do, also when its limiter was made under an earlier one: with redis-server
 * killed, a reload from {@code allow} to {@code refuse} refuses both.
 */
class OverridePolicyIT {

  private static final String CONFIG =
      """
      domain: a
      failure_policy: %s
      descriptors:
        - key: user
          rate_limit: {unit: minute, requests_per_unit: 100}
      """;

  private final RedisServerProcess redis = RedisServerProcess.start();
  private RedisStore store;

  @AfterEach
  void stop() {
    if (store != null) {
      store.close();
    }
    redis.close();
  }

  @Test
  void decideAsync_policyReloaded_overrideAnswersByTheNewPolicyAsTheRulesDo() throws Exception {
    FakeTicker ticker = new FakeTicker();
    store =
        RedisStore.connect(
            new Settings.Store(
                new Settings.Redis(
                    Settings.RedisMode.STANDALONE, List.of(redis.uri()), null, null, null, null),
                Duration.ofMillis(100),
                1,
                Duration.ofMinutes(1)),
            ticker,
            false);
    Decider decider =
        new Decider(
            Configs.parse(CONFIG.formatted("allow")),
            store,
            new Settings.Requests(true, 16, 1000, 1000, 1000),
            ticker);
    TestRequest.Descriptor own = descriptor("user", "u").override(5, TimeUnitName.MINUTE);
    TestRequest.Descriptor configured = descriptor("user", "u");
    assertThat(decide(decider, own).status(0).remaining()).as("Redis counted").isEqualTo(4);

    redis.kill();
    assertThat(decide(decider, own).overall()).as("allow answers").isEqualTo(Code.OK);
    assertThat(decide(decider, configured).overall()).isEqualTo(Code.OK);

    decider.apply(Configs.parse(CONFIG.formatted("refuse")));

    assertThat(decide(decider, configured).overall())
        .as("the rule answers by refuse")
        .isEqualTo(Code.OVER_LIMIT);
    assertThat(decide(decider, own).overall())
        .as("the descriptor's own limit answers by refuse too")
        .isEqualTo(Code.OVER_LIMIT);
  }

  private static Verdict decide(Decider decider, TestRequest.Descriptor descriptor)
      throws Exception {
    return decider
        .decideAsync(TestRequest.of("a", descriptor))
        .toCompletableFuture()
        .get(10, TimeUnit.SECONDS);
  }
}
