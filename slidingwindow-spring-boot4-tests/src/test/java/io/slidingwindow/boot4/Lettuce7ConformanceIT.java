package io.slidingwindow.boot4;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.LettuceVersion;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Ticker;
import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.redis.RedisRateLimiter;
import io.slidingwindow.redis.lettuce.LettuceBackends;
import io.slidingwindow.testkit.FailingLimiter;
import io.slidingwindow.testkit.RateLimiterConformance;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The core conformance kit (the sliding-log oracle's scenarios) against {@link RedisRateLimiter} on
 * Lettuce 7 and a real redis-server, in client-time mode so that the kit's fake clock drives the
 * script; slidingwindow-redis-tests runs the same kit on Lettuce 6. A failure reaching the failure
 * policy fails the test. Also {@link LettuceBackends#of(RedisClient)} over a caller's client.
 */
class Lettuce7ConformanceIT extends RateLimiterConformance {

  /**
   * One redis-server and backend, started on first use and closed at JVM exit: the kit's jqwik
   * properties run in their own engine, after JUnit Jupiter's {@code @AfterAll} would have run.
   */
  private static final class Shared {
    static final RedisServerProcess SERVER = RedisServerProcess.start();
    static final RedisBackend BACKEND = LettuceBackends.standalone(SERVER.uri());

    static {
      Runtime.getRuntime().addShutdownHook(new Thread(BACKEND::close));
    }
  }

  @Override
  protected KeyedRateLimiter<String> newLimiter(
      List<Limit> limits, boolean countRefusedAttempts, Ticker ticker) {
    return RedisRateLimiter.builder(Shared.BACKEND)
        .limits(limits)
        .countRefusedAttempts(countRefusedAttempts)
        .clientTime(ticker)
        .commandTimeout(Duration.ofSeconds(5))
        .fallback(new FailingLimiter())
        .build();
  }

  /** Redis time is in microseconds. */
  @Override
  protected long tickNanos() {
    return 1_000;
  }

  /**
   * As in slidingwindow-redis-tests: a clock stepping back is recorded into the newest stored run.
   */
  @Override
  protected boolean decidesAtLatestReading() {
    return false;
  }

  @Test
  void classPath_runsOnLettuce7() {
    assertThat(LettuceVersion.getVersion()).startsWith("7.");
  }

  /**
   * {@link LettuceBackends#of(RedisClient)} over a caller's client: 3 permits granted, the fourth
   * refused, and the client still connects after the backend is closed.
   */
  @Test
  void callersClient_grantsUpToTheLimitThenRefuses_andStaysOpen() {
    RedisClient client = RedisClient.create(Shared.SERVER.uri());
    try {
      try (RedisBackend backend = LettuceBackends.of(client)) {
        RedisRateLimiter limiter =
            RedisRateLimiter.builder(backend)
                .keyPrefix("callers-client")
                .limit(Limit.of(3, Duration.ofMinutes(1)))
                .commandTimeout(Duration.ofSeconds(5))
                .fallback(new FailingLimiter())
                .build();
        for (int call = 1; call <= 3; call++) {
          assertThat(limiter.decide("user", 1).allowed()).as("call %d", call).isTrue();
        }
        assertThat(limiter.decide("user", 1).allowed()).as("call 4").isFalse();
      }
      try (StatefulRedisConnection<String, String> connection = client.connect()) {
        assertThat(connection.sync().ping())
            .as("the caller's client after close")
            .isEqualTo("PONG");
      }
    } finally {
      client.shutdown();
    }
  }
}
