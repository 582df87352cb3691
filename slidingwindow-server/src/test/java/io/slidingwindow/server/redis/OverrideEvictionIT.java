package io.slidingwindow.server.redis;

import static io.slidingwindow.server.decide.TestRequest.descriptor;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.server.config.Configs;
import io.slidingwindow.server.config.TimeUnitName;
import io.slidingwindow.server.decide.Decider;
import io.slidingwindow.server.decide.Decisions.BadRequest;
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
 * On Redis a descriptor's own limit of a year, unused for over a minute, makes room in its domain's
 * full table of override limits, and nothing is lost by it: its counts stay in Redis, and when the
 * limit comes back it finds them. (In memory it keeps its place instead: OverrideLimitsTest.)
 */
class OverrideEvictionIT {

  private static final String CONFIG =
      """
      domain: a
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
  void decideAsync_domainFullOfYearLimits_oneUnusedForAMinuteMakesRoom_andKeepsItsCount()
      throws Exception {
    FakeTicker ticker = new FakeTicker();
    store =
        RedisStore.connect(
            new Settings.Store(
                new Settings.Redis(
                    Settings.RedisMode.STANDALONE, List.of(redis.uri()), null, null, null, null),
                Duration.ofSeconds(2),
                1,
                Duration.ofMinutes(1)),
            ticker,
            false);
    Decider decider =
        new Decider(
            Configs.parse(CONFIG), store, new Settings.Requests(true, 2, 1000, 1000, 1000), ticker);
    TestRequest.Descriptor oncePerYear = descriptor("user", "u").override(1, TimeUnitName.YEAR);
    TestRequest.Descriptor twicePerYear = descriptor("user", "u").override(2, TimeUnitName.YEAR);
    TestRequest.Descriptor perSecond = descriptor("user", "u").override(5, TimeUnitName.SECOND);
    assertThat(decide(decider, oncePerYear).overall()).isEqualTo(Code.OK);
    ticker.advance(Duration.ofSeconds(1));
    assertThat(decide(decider, twicePerYear).overall()).isEqualTo(Code.OK);
    assertThatThrownBy(() -> decide(decider, perSecond))
        .as("both limits of a year were just used")
        .isInstanceOf(BadRequest.class)
        .hasMessageContaining("holds 2 distinct descriptor limit overrides in use")
        .hasMessageContaining("or for 60 s if that is longer");

    ticker.advance(Duration.ofSeconds(61));
    assertThat(decide(decider, perSecond).overall())
        .as("the least recently used limit of a year, unused for 62 s, made room")
        .isEqualTo(Code.OK);
    assertThat(decide(decider, oncePerYear).overall())
        .as("back in the table (the other one of a year made room), it finds its count in Redis")
        .isEqualTo(Code.OVER_LIMIT);
    ticker.advance(Duration.ofSeconds(2)); // the limit of a second counts nothing any more
    assertThat(decide(decider, twicePerYear).status(0).remaining())
        .as("and so does the other one when it comes back in turn")
        .isZero();
  }

  private static Verdict decide(Decider decider, TestRequest.Descriptor descriptor)
      throws Exception {
    return decider
        .decideAsync(TestRequest.of("a", descriptor))
        .toCompletableFuture()
        .get(10, TimeUnit.SECONDS);
  }
}
