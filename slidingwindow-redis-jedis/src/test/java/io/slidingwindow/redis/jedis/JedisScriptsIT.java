package io.slidingwindow.redis.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.slidingwindow.Limit;
import io.slidingwindow.redis.FailurePolicy;
import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.redis.RedisRateLimiter;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The retry rules over Jedis against a redis-server of each test's own, whose command counts are
 * the test's alone: an unknown script is sent again with EVAL, a call without an answer in time is
 * never sent again, and a key that holds something else fails its request only.
 */
class JedisScriptsIT {

  private RedisServerProcess server;
  private RedisBackend backend;

  @BeforeEach
  void start() {
    server = RedisServerProcess.start();
    backend = JedisBackends.standalone(server.uri(), Duration.ofMillis(300));
  }

  @AfterEach
  void stop() {
    try {
      if (backend != null) {
        backend.close();
      }
    } finally {
      server.close();
    }
  }

  private long calls(String command) {
    Matcher m =
        Pattern.compile("cmdstat_" + command + ":calls=(\\d+)")
            .matcher(server.cli("INFO", "commandstats"));
    return m.find() ? Long.parseLong(m.group(1)) : 0;
  }

  private RedisRateLimiter limiter() {
    return RedisRateLimiter.builder(backend)
        .limit(Limit.of(5, Duration.ofMinutes(1)))
        .commandTimeout(Duration.ofMillis(300))
        .circuitBreaker(100, Duration.ofSeconds(1))
        .failurePolicy(FailurePolicy.failClosed())
        .build();
  }

  @Test
  void scriptFlushed_callSentAgainWithEval_andGranted() {
    RedisRateLimiter limiter = limiter();
    assertThat(limiter.tryAcquire("a", 1)).isTrue();
    assertThat(calls("eval")).as("the first call loads the script").isEqualTo(1);
    assertThat(limiter.tryAcquire("a", 1)).isTrue();
    assertThat(calls("eval")).as("then EVALSHA is enough").isEqualTo(1);
    server.cli("SCRIPT", "FLUSH");
    assertThat(limiter.decide("a", 1).remaining()).isEqualTo(2);
    assertThat(calls("eval")).isEqualTo(2);
    assertThat(calls("evalsha")).isEqualTo(3);
  }

  /**
   * Redis pauses every client for 500 ms; the call times out after 300 ms, and Jedis closes its
   * connection, so Redis drops the paused command. A call sent again after the timeout would run
   * when the pause ends (well within its own 300 ms): none does.
   */
  @Test
  void noAnswerInTime_neverSentAgain_policyAnswers() {
    RedisRateLimiter limiter = limiter();
    assertThat(limiter.tryAcquire("b", 1)).isTrue();
    long evalshaBefore = calls("evalsha");
    long evalBefore = calls("eval");
    server.cli("CLIENT", "PAUSE", "500");
    assertThat(limiter.tryAcquire("b", 1)).as("fail-closed answers the timeout").isFalse();
    await()
        .during(Duration.ofMillis(700))
        .atMost(Duration.ofSeconds(5))
        .until(() -> calls("evalsha") == evalshaBefore && calls("eval") == evalBefore);
    assertThat(limiter.decide("b", 1).remaining()).as("the first and this one ran").isEqualTo(3);
  }

  @Test
  void keyHoldingSomethingElse_failsThatRequestOnly() {
    RedisRateLimiter limiter = limiter();
    String key = "sw:{uYw}:5:60000000:60000"; // the key of id "c"
    server.cli("SET", key, "not a list");
    assertThat(limiter.tryAcquire("c", 1)).as("fail-closed answers").isFalse();
    assertThat(limiter.tryAcquire("d", 1)).isTrue();
    assertThat(server.cli("GET", key)).isEqualTo("not a list");
  }
}
