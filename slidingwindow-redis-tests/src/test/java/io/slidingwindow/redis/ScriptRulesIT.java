package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.slidingwindow.FailurePolicy;
import io.slidingwindow.Limit;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The retry rules for each client, against a server of each test's own whose command counts are the
 * test's alone: an unknown script is sent again with EVAL, a call without an answer in time is
 * never sent again, and a key that holds something else fails its request only.
 */
class ScriptRulesIT {

  private static final Duration TIMEOUT = Duration.ofMillis(300);

  private static RedisRateLimiter limiter(OwnServer redis) {
    return RedisRateLimiter.builder(redis.backend)
        .limit(Limit.of(5, Duration.ofMinutes(1)))
        .commandTimeout(TIMEOUT)
        .circuitBreaker(100, Duration.ofSeconds(1))
        .failurePolicy(FailurePolicy.REFUSE)
        .build();
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void scriptFlushed_callSentAgainWithEval_andGranted(Client client) {
    try (OwnServer redis = new OwnServer(client, TIMEOUT)) {
      RedisRateLimiter limiter = limiter(redis);
      assertThat(limiter.tryAcquire("a", 1)).isTrue();
      assertThat(redis.server.commandCalls("eval")).as("the first call loads it").isEqualTo(1);
      assertThat(limiter.tryAcquire("a", 1)).isTrue();
      assertThat(redis.server.commandCalls("eval")).as("then EVALSHA is enough").isEqualTo(1);
      redis.server.cli("SCRIPT", "FLUSH");
      assertThat(limiter.decide("a", 1).remaining()).isEqualTo(2);
      assertThat(redis.server.commandCalls("eval")).isEqualTo(2);
      assertThat(redis.server.commandCalls("evalsha")).isEqualTo(3);
    }
  }

  /**
   * Redis pauses every client for a second; the call times out after 300 ms. Jedis then closes its
   * connection, so Redis drops the paused command; Lettuce's connection stays, so Redis runs it
   * when the pause ends. A call sent again after the timeout would run too: none is, as the counts
   * show for 700 ms after the pause.
   */
  @ParameterizedTest
  @EnumSource(Client.class)
  void noAnswerInTime_neverSentAgain_policyAnswers(Client client) {
    try (OwnServer redis = new OwnServer(client, TIMEOUT)) {
      RedisRateLimiter limiter = limiter(redis);
      assertThat(limiter.tryAcquire("b", 1)).isTrue();
      long evalshaBefore = redis.server.commandCalls("evalsha");
      long evalBefore = redis.server.commandCalls("eval");
      redis.server.cli("CLIENT", "PAUSE", "1000");
      assertThat(limiter.tryAcquire("b", 1)).as("REFUSE answers the timeout").isFalse();
      redis.server.cli("PING"); // answered once the pause is over
      long ranAfterThePause = client.blocks() ? 0 : 1;
      await()
          .during(Duration.ofMillis(700))
          .atMost(Duration.ofSeconds(5))
          .until(
              () ->
                  redis.server.commandCalls("evalsha") == evalshaBefore + ranAfterThePause
                      && redis.server.commandCalls("eval") == evalBefore);
      assertThat(limiter.decide("b", 1).remaining())
          .as("the first, the paused one if it ran, and this one")
          .isEqualTo(3 - ranAfterThePause);
    }
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void keyHoldingSomethingElse_failsThatRequestOnly(Client client) {
    try (OwnServer redis = new OwnServer(client, TIMEOUT)) {
      RedisRateLimiter limiter = limiter(redis);
      String key = "sw:{uYw}:5:60000000:60000"; // the key of id "c"
      assertThat(limiter.keysOf("c")).containsExactly(key);
      redis.server.cli("SET", key, "not a list");
      assertThat(limiter.tryAcquire("c", 1)).as("REFUSE answers").isFalse();
      assertThat(limiter.tryAcquire("d", 1)).isTrue();
      assertThat(redis.server.cli("GET", key)).isEqualTo("not a list");
    }
  }
}
