package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.slidingwindow.Limit;
import io.slidingwindow.testkit.FailingLimiter;
import io.slidingwindow.testkit.FakeTicker;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The limiter renews a key's expiry once per quarter of T (the script's expiry base: the longest
 * window plus its bucket, at least a minute with client time) rather than at every run, and the
 * renewal it last made always outlives the key's newest run. Script time comes from a fake ticker;
 * Redis's own clock barely moves during the test, so each request's renewal is read from PTTL after
 * marking the key with a far expiry before the request, and the key never expires here. For each
 * client, on the shared server; a Lettuce connection of the test's own reads and marks the keys.
 */
class ExpiryRenewalIT {

  private static final long T_MILLIS = LimiterScript.CLIENT_TIME_MIN_TTL_MILLIS;
  private static final long EXPIRY_MILLIS = LimiterScript.expiryMillis(T_MILLIS);
  private static final long QUARTER_MICROS = T_MILLIS * 250;
  private static final long BUCKET_MICROS = 10_000;
  private static final String MARK_MILLIS = "1000000000";

  private static RedisClient inspector;
  private static StatefulRedisConnection<String, String> connection;

  @BeforeAll
  static void connect() {
    inspector = RedisClient.create(SharedRedis.server().uri());
    connection = inspector.connect();
  }

  @AfterAll
  static void close() {
    connection.close();
    inspector.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }

  /**
   * Over random gaps between grants, from none to past the window and across quarters: renewed at
   * script time r, a key lives until r + T + T/4, and its newest run, begun at b, needs it until b
   * + T (by then the run has left); so after every request r + T + T/4 >= b + T. Renewals are fewer
   * than runs (one per run would be the unrenewed-quarter rule broken the other way).
   */
  @ParameterizedTest
  @EnumSource(Client.class)
  void lastRenewalAlwaysOutlivesTheNewestRun_andRenewalsAreFewerThanRuns(Client client) {
    // T is the client-time minimum of a minute: the window and its bucket are shorter.
    Limit limit = Limit.of(1_000_000, Duration.ofSeconds(30)).withPrecision(Duration.ofMillis(10));
    RedisCommands<String, String> redis = connection.sync();
    Random random = new Random(20261124);
    int renewals = 0;
    int runsBegun = 0;
    for (int schedule = 0; schedule < 4; schedule++) {
      FakeTicker ticker = new FakeTicker();
      RedisRateLimiter limiter =
          RedisRateLimiter.builder(SharedRedis.backend(client))
              .limit(limit)
              .clientTime(ticker)
              .commandTimeout(Duration.ofSeconds(5))
              .fallback(new FailingLimiter())
              .build();
      String id = "renewal-" + client + "-" + schedule + "-" + System.nanoTime();
      String key = limiter.keysOf(id).get(0);
      long nowMicros = 0; // client time counts from the limiter's start
      long renewedAt = Long.MIN_VALUE;
      long newestRunBucket = Long.MIN_VALUE;
      for (int i = 0; i < 250; i++) {
        long gap =
            switch (random.nextInt(6)) {
              case 0 -> 0;
              case 1, 2 -> random.nextInt(20_000); // the same bucket or the next ones
              case 3, 4 -> random.nextLong(QUARTER_MICROS / 3);
              default ->
                  random.nextLong(QUARTER_MICROS * 8 / 3); // across quarters, past the window
            };
        nowMicros += gap;
        ticker.advance(Duration.ofNanos(gap * 1_000));
        redis.pexpire(key, Long.parseLong(MARK_MILLIS)); // false when the key does not exist
        assertThat(limiter.tryAcquire(id, 1)).isTrue();
        long bucket = nowMicros / BUCKET_MICROS;
        if (bucket > newestRunBucket) {
          runsBegun++;
          newestRunBucket = bucket;
        }
        long pttl = redis.pttl(key);
        if (pttl <= EXPIRY_MILLIS) {
          assertThat(pttl).as("a renewal sets T + T/4").isGreaterThan(EXPIRY_MILLIS - 5_000);
          renewals++;
          renewedAt = nowMicros;
        } else {
          assertThat(pttl).as("without a renewal the mark stays").isGreaterThan(EXPIRY_MILLIS * 2);
        }
        assertThat(renewedAt).as("the first grant makes the key and renews it").isNotNegative();
        assertThat(renewedAt + EXPIRY_MILLIS * 1_000)
            .as("request %d of schedule %d: the key outlives its newest run", i, schedule)
            .isGreaterThanOrEqualTo(newestRunBucket * BUCKET_MICROS + T_MILLIS * 1_000);
      }
    }
    assertThat(renewals).as("renewals against %d runs begun", runsBegun).isLessThan(runsBegun / 2);
  }
}
