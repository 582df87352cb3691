package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.FailurePolicy;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Ticker;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A Redis builder setting given twice: the same value again is fine, another is an error. */
class BuilderSettingsTest {

  /** A backend that is never called: the builders only hold it. */
  private static RedisBackend idle() {
    return new ScriptedClient().backend();
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
            () -> b.failurePolicy(FailurePolicy.ALLOW).failurePolicy(FailurePolicy.REFUSE))
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

  @Test
  void limiterBuilder_invalidSettings_areRejectedNamingTheParameter() {
    RedisRateLimiter.Builder builder = RedisRateLimiter.builder(idle());
    assertThatThrownBy(() -> builder.limit(Limit.of(5, Duration.ofNanos(1_500))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("window");
    assertThatThrownBy(
            () ->
                builder.limit(
                    Limit.of(5, Duration.ofSeconds(1)).withPrecision(Duration.ofNanos(2_500))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("precision");
    assertThatThrownBy(() -> builder.limit(null)).hasMessageContaining("limit");
    assertThatThrownBy(() -> builder.commandTimeout(Duration.ZERO))
        .hasMessageContaining("commandTimeout");
    assertThatThrownBy(() -> builder.keyPrefix("a{b")).hasMessageContaining("keyPrefix");
    assertThatThrownBy(() -> builder.circuitBreaker(0, Duration.ofSeconds(1)))
        .hasMessageContaining("consecutiveFailures");
    assertThatThrownBy(() -> builder.failurePolicy(null)).hasMessageContaining("failurePolicy");
    assertThatThrownBy(() -> builder.fallback(null)).hasMessageContaining("fallback");
    assertThatThrownBy(() -> builder.refusalCache(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("slots");
    assertThatThrownBy(() -> builder.refusalCache(RefusalCache.MAX_SLOTS + 1))
        .hasMessageContaining("slots");
    assertThatThrownBy(builder::build).hasMessageContaining("limits");
    assertThatThrownBy(() -> RedisRateLimiter.builder(null)).hasMessageContaining("backend");
    assertThat(builder.limit(Limit.exact(5, Duration.ofSeconds(1))).build().limits())
        .containsExactly(Limit.exact(5, Duration.ofSeconds(1)));
  }

  @Test
  void limiterBuilder_fallbackWithAnotherPolicyThanLocal_isRejectedNamingBoth() {
    KeyedRateLimiter<String> share =
        KeyedRateLimiter.builder().limit(Limit.of(1, Duration.ofSeconds(1))).build();
    for (FailurePolicy policy : List.of(FailurePolicy.ALLOW, FailurePolicy.REFUSE)) {
      RedisRateLimiter.Builder b =
          RedisRateLimiter.builder(idle())
              .limit(Limit.of(5, Duration.ofSeconds(1)))
              .failurePolicy(policy)
              .fallback(share);
      assertThatThrownBy(b::build)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("fallback")
          .hasMessageContaining("LOCAL")
          .hasMessageContaining(policy.name());
    }
  }

  @Test
  void countersBuilder_invalidSettings_areRejectedNamingTheParameter() {
    RedisCounters.Builder builder = RedisCounters.builder(idle());
    assertThatThrownBy(() -> builder.size(0)).hasMessageContaining("size");
    assertThatThrownBy(() -> builder.size(RedisCounters.MAX_SIZE + 1)).hasMessageContaining("size");
    assertThatThrownBy(() -> builder.interval(Duration.ofNanos(1_500)))
        .hasMessageContaining("interval");
    assertThatThrownBy(() -> builder.interval(Duration.ZERO)).hasMessageContaining("interval");
    assertThatThrownBy(() -> builder.keyPrefix("{")).hasMessageContaining("keyPrefix");
    assertThatThrownBy(() -> builder.build().sum(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key");
    assertThatThrownBy(() -> RedisCounters.builder(null)).hasMessageContaining("backend");
  }

  @Test
  void builders_prefixWithALoneSurrogate_areRejected() {
    assertThatThrownBy(() -> RedisRateLimiter.builder(idle()).keyPrefix("sw\uD800"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unpaired surrogate at index 2");
    assertThatThrownBy(() -> RedisCounters.builder(idle()).keyPrefix("\uDC00sw"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unpaired surrogate at index 0");
  }
}
