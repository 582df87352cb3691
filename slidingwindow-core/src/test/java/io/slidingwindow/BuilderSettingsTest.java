package io.slidingwindow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Every core builder takes each setting once: a second, different value is an error. */
class BuilderSettingsTest {

  private static final Limit LIMIT = Limit.of(5, Duration.ofSeconds(1));
  private static final Ticker ONE = () -> 1;
  private static final Ticker TWO = () -> 2;

  @Test
  void rateLimiterBuilder_settingChanged_throwsNamingSetterAndBothValues() {
    assertThatThrownBy(() -> RateLimiter.builder().ticker(ONE).ticker(TWO))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("ticker was already set to " + ONE + ", cannot set it to " + TWO);
    assertThatThrownBy(
            () -> RateLimiter.builder().countRefusedAttempts(true).countRefusedAttempts(false))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("countRefusedAttempts was already set to true, cannot set it to false");
  }

  @Test
  void keyedRateLimiterBuilder_settingChanged_throwsNamingSetterAndBothValues() {
    assertThatThrownBy(() -> KeyedRateLimiter.builder().maxKeys(10).maxKeys(20))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("maxKeys was already set to 10, cannot set it to 20");
    assertThatThrownBy(
            () ->
                KeyedRateLimiter.builder()
                    .onKeyOverflow(KeyOverflow.REFUSE)
                    .onKeyOverflow(KeyOverflow.ALLOW_UNTRACKED))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("onKeyOverflow was already set to REFUSE, cannot set it to ALLOW_UNTRACKED");
    assertThatThrownBy(() -> KeyedRateLimiter.builder().ticker(ONE).ticker(TWO))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("ticker was already set to ");
  }

  @Test
  void rollingCountersBuilder_settingChanged_throwsNamingSetterAndBothValues() {
    RollingCounters.Builder b = RollingCounters.builder(3, Duration.ofSeconds(1));
    assertThatThrownBy(() -> b.maxKeys(10).maxKeys(11))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("maxKeys was already set to 10, cannot set it to 11");
    assertThatThrownBy(
            () ->
                RollingCounters.builder(3, Duration.ofSeconds(1))
                    .onKeyOverflow(KeyOverflow.ALLOW_UNTRACKED)
                    .onKeyOverflow(KeyOverflow.REFUSE))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("onKeyOverflow was already set to ALLOW_UNTRACKED, cannot set it to REFUSE");
    assertThatThrownBy(
            () -> RollingCounters.builder(3, Duration.ofSeconds(1)).ticker(ONE).ticker(TWO))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("ticker was already set to ");
  }

  @Test
  void rollingWindowBuilder_settingChanged_throwsNamingSetterAndBothValues() {
    assertThatThrownBy(() -> RollingWindow.builder().size(10).size(12))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("size was already set to 10, cannot set it to 12");
    assertThatThrownBy(
            () ->
                RollingWindow.builder()
                    .interval(Duration.ofMillis(100))
                    .interval(Duration.ofSeconds(1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("interval was already set to PT0.1S, cannot set it to PT1S");
    assertThatThrownBy(() -> RollingWindow.builder().ignoreCurrent(false).ignoreCurrent(true))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("ignoreCurrent was already set to false, cannot set it to true");
    assertThatThrownBy(() -> RollingWindow.builder().ticker(ONE).ticker(TWO))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("ticker was already set to ");
    assertThatThrownBy(() -> RollingWindow.builder().stripes(2).stripes(4))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("stripes was already set to 2, cannot set it to 4");
  }

  @Test
  void builders_sameValueTwice_accepted() {
    RateLimiter limiter =
        RateLimiter.builder()
            .limit(LIMIT)
            .ticker(ONE)
            .ticker(ONE)
            .countRefusedAttempts(false)
            .countRefusedAttempts(false)
            .build();
    assertThat(limiter.tryAcquire()).isTrue();
    KeyedRateLimiter<String> keyed =
        KeyedRateLimiter.builder()
            .limit(LIMIT)
            .maxKeys(10)
            .maxKeys(10)
            .onKeyOverflow(KeyOverflow.REFUSE)
            .onKeyOverflow(KeyOverflow.REFUSE)
            .build();
    assertThat(keyed.tryAcquire("k")).isTrue();
    @SuppressWarnings("CanonicalDuration") // the same second spelled in other units, on purpose
    Duration sameSecond = Duration.ofMillis(1000);
    RollingWindow window =
        RollingWindow.builder()
            .size(4)
            .size(4)
            .interval(Duration.ofSeconds(1))
            .interval(sameSecond)
            .ticker(ONE)
            .ticker(ONE)
            .build();
    assertThat(window.size()).isEqualTo(4);
    assertThat(window.interval()).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void builders_badValue_leavesTheSettingUnset() {
    RollingWindow.Builder b = RollingWindow.builder();
    assertThatThrownBy(() -> b.size(0)).isInstanceOf(IllegalArgumentException.class);
    assertThat(b.size(7).build().size()).isEqualTo(7);
  }
}
