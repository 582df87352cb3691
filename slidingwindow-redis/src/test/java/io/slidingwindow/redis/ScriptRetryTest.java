package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.FailurePolicy;
import io.slidingwindow.Limit;
import io.slidingwindow.redis.ScriptedClient.ErrorReply;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The retry rules of a script call (NOSCRIPT re-sent with EVAL, TRYAGAIN re-sent at most twice,
 * nothing else and never a call without an answer), through the limiter's synchronous and
 * asynchronous paths alike, over a client whose answers the test scripts. No network. The client
 * adapters' reading of their libraries' failures is tested in their own modules.
 */
class ScriptRetryTest {

  private static ErrorReply noScript() {
    return new ErrorReply("NOSCRIPT No matching script. Please use EVAL.");
  }

  private static ErrorReply tryAgain() {
    return new ErrorReply("TRYAGAIN Multiple keys request during rehashing of slot");
  }

  /** The script's answer to one request without figures: granted, at 1 s, nothing held. */
  private static List<Object> granted() {
    return List.of(1L, 1_000_000L, 0L);
  }

  private enum Path {
    SYNC,
    ASYNC
  }

  /** What one tryAcquire answered, and the commands it sent. */
  private record Outcome(boolean allowed, List<String> sent) {}

  /**
   * With a command timeout that the retries' short pauses, on a pool a loaded machine may keep
   * busy, cannot run out of; a call with no answer waits for {@link #tryAcquireTimingOut}'s.
   */
  private static Outcome tryAcquire(Path path, Object... answers) throws Exception {
    return tryAcquire(path, Duration.ofSeconds(5), answers);
  }

  private static Outcome tryAcquireTimingOut(Path path, Object... answers) throws Exception {
    return tryAcquire(path, Duration.ofMillis(300), answers);
  }

  private static Outcome tryAcquire(Path path, Duration timeout, Object... answers)
      throws Exception {
    ScriptedClient client = new ScriptedClient(answers);
    try (RedisBackend backend = client.backend()) {
      RedisRateLimiter limiter =
          RedisRateLimiter.builder(backend)
              .limit(Limit.of(5, Duration.ofMinutes(1)))
              .batching(false)
              .refusalCache(0)
              .commandTimeout(timeout)
              .failurePolicy(FailurePolicy.REFUSE)
              .build();
      boolean allowed =
          path == Path.SYNC
              ? limiter.tryAcquire("id", 1)
              : limiter.tryAcquireAsync("id", 1).toCompletableFuture().get(10, TimeUnit.SECONDS);
      return new Outcome(allowed, List.copyOf(client.sent));
    }
  }

  @Test
  void tryAgainAnsweringTheEval_bothPaths_resendTheEvalAndAreGranted() throws Exception {
    for (Path path : Path.values()) {
      Outcome outcome = tryAcquire(path, noScript(), tryAgain(), granted());
      assertThat(outcome.sent()).as(path.name()).containsExactly("EVALSHA", "EVAL", "EVAL");
      assertThat(outcome.allowed()).as(path.name()).isTrue();
    }
  }

  @Test
  void tryAgainEveryTime_bothPaths_sendThreeTimesThenThePolicyAnswers() throws Exception {
    for (Path path : Path.values()) {
      Outcome outcome = tryAcquire(path, tryAgain(), tryAgain(), tryAgain(), granted());
      assertThat(outcome.sent()).as(path.name()).containsExactly("EVALSHA", "EVALSHA", "EVALSHA");
      assertThat(outcome.allowed()).as(path.name() + ": REFUSE answers").isFalse();
    }
  }

  @Test
  void tryAgainThenNoScript_bothPaths_evalAndGranted() throws Exception {
    for (Path path : Path.values()) {
      Outcome outcome = tryAcquire(path, tryAgain(), noScript(), granted());
      assertThat(outcome.sent()).as(path.name()).containsExactly("EVALSHA", "EVALSHA", "EVAL");
      assertThat(outcome.allowed()).as(path.name()).isTrue();
    }
  }

  @Test
  void noScriptAnsweringTheEval_bothPaths_notSentAgain() throws Exception {
    for (Path path : Path.values()) {
      Outcome outcome = tryAcquire(path, noScript(), noScript(), granted());
      assertThat(outcome.sent()).as(path.name()).containsExactly("EVALSHA", "EVAL");
      assertThat(outcome.allowed()).as(path.name()).isFalse();
    }
  }

  @Test
  void noAnswerInTime_bothPaths_neverSentAgain() throws Exception {
    for (Path path : Path.values()) {
      Outcome outcome = tryAcquireTimingOut(path, ScriptedClient.NO_ANSWER, granted());
      assertThat(outcome.sent()).as(path.name()).containsExactly("EVALSHA");
      assertThat(outcome.allowed()).as(path.name()).isFalse();
    }
  }

  @Test
  void connectionDropped_bothPaths_neverSentAgain() throws Exception {
    for (Path path : Path.values()) {
      Outcome outcome = tryAcquire(path, new IllegalStateException("connection reset"), granted());
      assertThat(outcome.sent()).as(path.name()).containsExactly("EVALSHA");
      assertThat(outcome.allowed()).as(path.name()).isFalse();
    }
  }

  @Test
  void otherErrorReply_bothPaths_notRetried() throws Exception {
    for (Path path : Path.values()) {
      Outcome outcome =
          tryAcquire(path, new ErrorReply("WRONGTYPE Operation against a key"), granted());
      assertThat(outcome.sent()).as(path.name()).containsExactly("EVALSHA");
      assertThat(outcome.allowed()).as(path.name()).isFalse();
    }
  }
}
