package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Limit;
import io.slidingwindow.testkit.FailingLimiter;
import io.slidingwindow.testkit.FakeTicker;
import java.time.Clock;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The Redis commands the limiter script issues per request, counted by the server of each test's
 * own ({@code INFO commandstats} counts the commands a script runs): a sliding window issues only
 * its list commands, none of a calendar quota's, and a calendar quota reads its key on every
 * request and writes it on a grant only.
 */
class ScriptCommandsIT {

  private static final String[] COMMANDS = {
    "lindex", "rpush", "lset", "pexpire", "lrange", "ltrim", "del", "get", "set"
  };

  private static Map<String, Long> counts(OwnServer redis) {
    Map<String, Long> counts = new TreeMap<>();
    for (String command : COMMANDS) {
      long calls = redis.server.commandCalls(command);
      if (calls > 0) {
        counts.put(command, calls);
      }
    }
    return counts;
  }

  /** Three grants then two refusals, in one bucket of a fake clock, no refusal cache. */
  private static void fiveRequests(OwnServer redis, Limit limit) {
    RedisRateLimiter limiter =
        RedisRateLimiter.builder(redis.backend)
            .limit(limit)
            .clientTime(new FakeTicker())
            .calendarClock(Clock.systemUTC())
            .refusalCache(0)
            .commandTimeout(Client.GENEROUS)
            .fallback(new FailingLimiter())
            .build();
    redis.server.cli("CONFIG", "RESETSTAT");
    for (int i = 0; i < 5; i++) {
      assertThat(limiter.tryAcquire("id", 1)).as("request %s", i).isEqualTo(i < 3);
    }
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void slidingWindow_threeGrantsTwoRefusals_listCommandsOnly(Client client) {
    try (OwnServer redis = new OwnServer(client, Client.GENEROUS)) {
      fiveRequests(redis, Limit.parse("3/1m"));
      assertThat(counts(redis))
          .as("a read per request, the key made once, then its header rewritten")
          .isEqualTo(Map.of("lindex", 5L, "rpush", 1L, "pexpire", 1L, "lset", 2L));
    }
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void calendarQuota_threeGrantsTwoRefusals_aReadEachAndAWritePerGrant(Client client) {
    try (OwnServer redis = new OwnServer(client, Client.GENEROUS)) {
      fiveRequests(redis, Limit.parse("3/month@Europe/Paris"));
      assertThat(counts(redis)).isEqualTo(Map.of("get", 5L, "set", 3L));
    }
  }
}
