package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.Ticker;
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
  void builders_sharedSettingGivenAnotherValue_throwNamingBothValues() {
    Ticker one = () -> 1;
    Ticker two = () -> 2;
    for (RedisBuilder<?> b :
        List.<RedisBuilder<?>>of(RedisRateLimiter.builder(idle()), RedisCounters.builder(idle()))) {
      assertThat(b.keyPrefix("a").clientTime(one).commandTimeout(Duration.ofMillis(20)))
          .isSameAs(b);
      assertThat(b.keyPrefix("a").clientTime(one).commandTimeout(Duration.ofMillis(20)))
          .isSameAs(b);

      assertThatThrownBy(() -> b.keyPrefix("b"))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("keyPrefix was already set to a, cannot set it to b");
      assertThatThrownBy(() -> b.clientTime(two))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("clientTime was already set to " + one + ", cannot set it to " + two);
      assertThatThrownBy(() -> b.commandTimeout(Duration.ofMillis(30)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("commandTimeout was already set to PT0.02S, cannot set it to PT0.03S");
      assertThat(b.keyPrefix).isEqualTo("a");
      assertThat(b.clientTime).isSameAs(one);
      assertThat(b.commandTimeout).isEqualTo(Duration.ofMillis(20));
    }
  }

  @Test
  void builders_sharedSettingInvalid_throwsNamingParameter() {
    for (RedisBuilder<?> b :
        List.<RedisBuilder<?>>of(RedisRateLimiter.builder(idle()), RedisCounters.builder(idle()))) {
      assertThatThrownBy(() -> b.keyPrefix("a{b"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("keyPrefix");
      assertThatThrownBy(() -> b.clientTime(null))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("ticker must not be null");
      assertThatThrownBy(() -> b.commandTimeout(Duration.ofHours(2)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("commandTimeout must be positive and at most PT1H, was PT2H");
      assertThat(b.keyPrefix).isEqualTo(RedisRateLimiter.DEFAULT_KEY_PREFIX);
      assertThat(b.clientTime).isNull();
      assertThat(b.commandTimeout).isEqualTo(RedisRateLimiter.DEFAULT_COMMAND_TIMEOUT);
    }
  }

  @Test
  void countersBuilder_settingGivenAnotherValue_throws() {
    RedisCounters.Builder b = RedisCounters.builder(idle()).keyPrefix("a");

    assertThat(b.keyPrefix("a")).isSameAs(b);
    assertThat(b.size(10).size(10).interval(Duration.ofSeconds(2))).isSameAs(b);
    assertThatThrownBy(() -> b.size(11))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("size was already set to 10, cannot set it to 11");
    assertThatThrownBy(() -> b.interval(Duration.ofSeconds(3)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("interval was already set to PT2S, cannot set it to PT3S");
    assertThatThrownBy(() -> b.keyPrefix("b"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("keyPrefix was already set to a, cannot set it to b");
  }
}
