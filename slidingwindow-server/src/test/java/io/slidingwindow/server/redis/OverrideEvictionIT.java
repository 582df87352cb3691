package io.slidingwindow.server.redis;

import static io.slidingwindow.server.decide.TestRequest.descriptor;
import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.server.config.Configs;
import io.slidingwindow.server.config.TimeUnitName;
import io.slidingwindow.server.decide.Decider;
import io.slidingwindow.server.decide.Decisions.Code;
import io.slidingwindow.server.decide.Decisions.Outcome;
import io.slidingwindow.server.decide.Decisions.Verdict;
import io.slidingwindow.server.decide.TestRequest;
import io.slidingwindow.server.settings.Settings;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.testkit.LogCapture;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * On Redis a descriptor's own limit of a year, unused for over a minute, makes room in its domain's
 * full table of override limits, and nothing is lost by it: its counts stay in Redis, and when the
 * limit comes back it finds them, and a WARNING says so at most once a minute per domain. (In
 * memory it keeps its place instead: OverrideLimitsTest.)
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
  private final FakeTicker ticker = new FakeTicker();
  private LogCapture log;
  private RedisStore store;

  @AfterEach
  void stop() {
    if (log != null) {
      log.close();
    }
    if (store != null) {
      store.close();
    }
    redis.close();
  }

  /** A decider on Redis whose domain keeps at most two override limits. */
  private Decider decider() throws Exception {
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
    return new Decider(
        Configs.parse(CONFIG), store, new Settings.Requests(true, 2, 1000, 1000, 1000), ticker);
  }

  @Test
  void decideAsync_domainFullOfYearLimits_oneUnusedForAMinuteMakesRoom_andKeepsItsCount()
      throws Exception {
    Decider decider = decider();
    TestRequest.Descriptor oncePerYear = descriptor("user", "u").override(1, TimeUnitName.YEAR);
    TestRequest.Descriptor twicePerYear = descriptor("user", "u").override(2, TimeUnitName.YEAR);
    TestRequest.Descriptor perSecond = descriptor("user", "u").override(5, TimeUnitName.SECOND);
    assertThat(decide(decider, oncePerYear).overall()).isEqualTo(Code.OK);
    ticker.advance(Duration.ofSeconds(1));
    assertThat(decide(decider, twicePerYear).overall()).isEqualTo(Code.OK);
    assertThat(decide(decider, perSecond).status(0).outcome())
        .as("both limits of a year were just used: refused, not counted")
        .isEqualTo(Outcome.BAD_OVERRIDE);

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

  /**
   * What docs/server.md promises of evictions of limits that may still count: a WARNING at most
   * once a minute per domain, so that a caller who churns limits cannot flood the log.
   */
  @Test
  void decideAsync_limitsOfAYearMakeRoomAgainAndAgain_warnsAtMostOnceAMinute() throws Exception {
    Decider decider = decider();
    log = LogCapture.of("io.slidingwindow.server.decide.OverrideLimits");
    assertThat(decide(decider, year(1)).overall()).isEqualTo(Code.OK);
    assertThat(decide(decider, year(2)).overall()).isEqualTo(Code.OK);

    ticker.advance(Duration.ofSeconds(61));
    assertThat(decide(decider, year(3)).overall()).isEqualTo(Code.OK);
    assertThat(warnings())
        .singleElement()
        .asString()
        .startsWith("domain 'a' holds 2 distinct descriptor limit overrides")
        .contains("the most it keeps (--max-override-limits)")
        .contains(", unused for 61 s but within its window, made room for a new one;")
        .endsWith("its counts stay in the store");
    ticker.advance(Duration.ofSeconds(59));
    assertThat(decide(decider, year(4)).overall()).isEqualTo(Code.OK);
    assertThat(warnings()).as("a second eviction 59 s after the first").hasSize(1);

    ticker.advance(Duration.ofSeconds(2));
    assertThat(decide(decider, year(5)).overall())
        .as("the limit of 3 a year, unused for 61 s, made room")
        .isEqualTo(Code.OK);
    assertThat(warnings()).as("a third eviction 61 s after the first").hasSize(2);
    assertThat(warnings().get(1)).contains("made room for a new one");
  }

  /** The messages of OverrideLimits' WARNINGs since the capture began. */
  private List<String> warnings() {
    return log.messages(Level.WARNING);
  }

  private static TestRequest.Descriptor year(long requests) {
    return descriptor("user", "u").override(requests, TimeUnitName.YEAR);
  }

  private static Verdict decide(Decider decider, TestRequest.Descriptor descriptor)
      throws Exception {
    return decider
        .decideAsync(TestRequest.of("a", descriptor))
        .toCompletableFuture()
        .get(10, TimeUnit.SECONDS);
  }
}
