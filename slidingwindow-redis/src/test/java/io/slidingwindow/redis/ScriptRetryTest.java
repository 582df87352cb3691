package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.slidingwindow.Limit;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The retry rules of a script call (NOSCRIPT re-sent with EVAL, TRYAGAIN re-sent at most twice,
 * nothing else and never a call without an answer), through the limiter's synchronous and
 * asynchronous paths alike, over Lettuce commands whose answers the test scripts. No network.
 */
class ScriptRetryTest {

  private static final Object NO_ANSWER = new Object();

  /** Scripting commands that answer from a queue and record which command each call was. */
  private static final class ScriptedCommands {
    final Deque<Object> answers = new ArrayDeque<>();
    final List<String> sent = Collections.synchronizedList(new ArrayList<>());

    ScriptedCommands(Object... answers) {
      this.answers.addAll(List.of(answers));
    }

    @SuppressWarnings("unchecked")
    RedisScriptingAsyncCommands<String, String> proxy() {
      return (RedisScriptingAsyncCommands<String, String>)
          Proxy.newProxyInstance(
              getClass().getClassLoader(),
              new Class<?>[] {RedisScriptingAsyncCommands.class},
              (self, method, args) -> {
                String name = method.getName();
                if (!name.equals("evalsha") && !name.equals("eval")) {
                  throw new UnsupportedOperationException(name);
                }
                sent.add(name.toUpperCase(Locale.ROOT));
                Object answer = answers.poll();
                Answer<Object> future = new Answer<>();
                if (answer instanceof Throwable failure) {
                  future.completeExceptionally(failure);
                } else if (answer != NO_ANSWER) {
                  future.complete(answer);
                }
                return future;
              });
    }
  }

  /** A Lettuce future completed by the test. */
  private static final class Answer<T> extends CompletableFuture<T> implements RedisFuture<T> {
    @Override
    public String getError() {
      return null;
    }

    @Override
    public boolean await(long timeout, TimeUnit unit) {
      throw new UnsupportedOperationException();
    }
  }

  private static Exception noScript() {
    return new RedisNoScriptException("NOSCRIPT No matching script. Please use EVAL.");
  }

  private static Exception tryAgain() {
    return new RedisCommandExecutionException("TRYAGAIN Multiple keys request during rehashing");
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

  private static Outcome tryAcquire(Path path, Object... answers) throws Exception {
    ScriptedCommands commands = new ScriptedCommands(answers);
    try (RedisBackend backend = RedisBackend.over(commands.proxy())) {
      RedisRateLimiter limiter =
          RedisRateLimiter.builder(backend)
              .limit(Limit.of(5, Duration.ofMinutes(1)))
              .batching(false)
              .refusalCache(0)
              .commandTimeout(Duration.ofSeconds(2))
              .failurePolicy(FailurePolicy.failClosed())
              .build();
      boolean allowed =
          path == Path.SYNC
              ? limiter.tryAcquire("id", 1)
              : limiter.tryAcquireAsync("id", 1).toCompletableFuture().get(10, TimeUnit.SECONDS);
      return new Outcome(allowed, List.copyOf(commands.sent));
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
      assertThat(outcome.allowed()).as(path.name() + ": fail-closed answers").isFalse();
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
      Outcome outcome = tryAcquire(path, NO_ANSWER, granted());
      assertThat(outcome.sent()).as(path.name()).containsExactly("EVALSHA");
      assertThat(outcome.allowed()).as(path.name()).isFalse();
    }
  }

  @Test
  void otherErrorReply_bothPaths_notRetried() throws Exception {
    for (Path path : Path.values()) {
      Exception wrongType = new RedisCommandExecutionException("WRONGTYPE Operation against a key");
      Outcome outcome = tryAcquire(path, wrongType, granted());
      assertThat(outcome.sent()).as(path.name()).containsExactly("EVALSHA");
      assertThat(outcome.allowed()).as(path.name()).isFalse();
    }
  }
}
