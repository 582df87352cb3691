package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** A Redis builder setting given twice: the same value again is fine, another is an error. */
class BuilderSettingsTest {

  /** A backend that is never called: the builders only hold it. */
  private static RedisBackend idle() {
    ScriptClient never =
        new ScriptClient() {
          @Override
          public CompletableFuture<List<Object>> evalsha(
              String sha1, String[] keys, String[] args) {
            throw new AssertionError("not called");
          }

          @Override
          public CompletableFuture<List<Object>> eval(String script, String[] keys, String[] args) {
            throw new AssertionError("not called");
          }

          @Override
          public String errorReply(Throwable failure) {
            return null;
          }

          @Override
          public void onNoAnswer(Throwable failure) {}

          @Override
          public boolean isCluster() {
            return false;
          }
        };
    return RedisBackend.of(never, () -> {}, "idle");
  }

  @Test
  void limiterBuilder_settingGivenAnotherValue_throwsNamingBothValues() {
    RedisRateLimiter.Builder b =
        RedisRateLimiter.builder(idle())
            .commandTimeout(Duration.ofMillis(50))
            .commandTimeout(Duration.ofMillis(50))
            .batching(false);

    assertThatThrownBy(() -> b.commandTimeout(Duration.ofSeconds(1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("commandTimeout was already set to PT0.05S, cannot set it to PT1S");
    assertThatThrownBy(() -> b.batching(true))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("batching");
    assertThatThrownBy(
            () ->
                b.failurePolicy(FailurePolicy.failOpen()).failurePolicy(FailurePolicy.failClosed()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("failurePolicy");
  }

  @Test
  void countersBuilder_settingGivenAnotherValue_throws() {
    RedisCounters.Builder b = RedisCounters.builder(idle()).keyPrefix("a");

    assertThat(b.keyPrefix("a")).isSameAs(b);
    assertThatThrownBy(() -> b.keyPrefix("b"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("keyPrefix was already set to a, cannot set it to b");
  }
}
