package io.slidingwindow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class LimitTextTest {

  @ParameterizedTest
  @CsvSource({
    "5/10s, 5, PT10S",
    "500/2s, 500, PT2S",
    "' 7 / 250ms ', 7, PT0.25S",
    "1000/PT1M, 1000, PT1M",
    "3/1d, 3, PT24H",
    "9/90us, 9, PT0.00009S",
    "1/1ns, 1, PT0.000000001S"
  })
  void parse_wellFormed_readsPermitsAndWindowWithTheDefaultPrecision(
      String text, long permits, Duration window) {
    assertThat(Limit.parse(text)).isEqualTo(Limit.of(permits, window));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"", "5", "5/", "/10s", "5/10s/1m", "five/10s", "5/ten", "5 per 10s", "5/10 s"})
  void parse_malformed_throwsSayingTheExpectedForm(String text) {
    assertThatThrownBy(() -> Limit.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'")
        .hasMessageContaining("limit");
  }

  @Test
  void parse_null_throws() {
    assertThatThrownBy(() -> Limit.parse(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("limit must not be null");
  }

  @ParameterizedTest
  @ValueSource(strings = {"0/1s", "-3/1s"})
  void parse_permitsNotPositive_throwsNamingThePermits(String text) {
    assertThatThrownBy(() -> Limit.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("limit's permits must be positive");
  }

  @ParameterizedTest
  @ValueSource(strings = {"5/0s", "5/PT0S", "5/-PT1S", "5/99999999999999999d"})
  void parse_windowNotPositiveOrTooLong_throwsNamingTheWindow(String text) {
    assertThatThrownBy(() -> Limit.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("limit's window");
  }

  @Test
  void parse_permitsBeyondLong_throwsNamingThePermits() {
    assertThatThrownBy(() -> Limit.parse("99999999999999999999/1s"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("limit's permits must be a whole number");
  }

  @ParameterizedTest
  @CsvSource({
    "PT10S, 5/10s",
    "PT1.5S, 5/1500ms",
    "PT2M, 5/2m",
    "PT3H, 5/3h",
    "PT48H, 5/2d",
    "PT0.000002S, 5/2us",
    "PT0.000000007S, 5/7ns",
    "PT61S, 5/61s"
  })
  void toText_writesTheLargestWholeUnit(Duration window, String text) {
    assertThat(Limit.of(5, window).toText()).isEqualTo(text);
  }

  @Property(tries = 300)
  void toText_parse_roundTrips(
      @ForAll @LongRange(min = 1, max = Long.MAX_VALUE) long permits,
      @ForAll @LongRange(min = 1, max = Long.MAX_VALUE) long windowNanos) {
    Limit limit = Limit.of(permits, Duration.ofNanos(windowNanos));
    assertThat(Limit.parse(limit.toText())).isEqualTo(limit);
  }

  @Test
  void durationFormat_notPositive_throws() {
    assertThatThrownBy(() -> DurationText.format(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("duration must be positive, was PT0S");
    assertThatThrownBy(() -> DurationText.format(null))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void durationParse_null_throwsNamingTheSetting() {
    assertThatThrownBy(() -> DurationText.parse(null, "timeout"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("timeout must not be null");
  }
}
