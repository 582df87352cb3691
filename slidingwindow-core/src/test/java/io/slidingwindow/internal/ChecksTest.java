package io.slidingwindow.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ChecksTest {

  @Test
  void requireArgument_false_namesParameterRuleAndValue() {
    assertThatThrownBy(() -> Checks.requireArgument(false, "size", "be even", 7L))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("size must be even, was 7");
    assertThatThrownBy(() -> Checks.requireArgument(false, "value", "be finite", Double.NaN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("value must be finite, was NaN");
    assertThatThrownBy(
            () -> Checks.requireArgument(false, "interval", "be short", Duration.ofDays(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("interval must be short, was PT24H");
  }

  @Test
  void requireArgument_true_returnsQuietly() {
    Checks.requireArgument(true, "size", "be even", 8L);
    Checks.requireArgument(true, "value", "be finite", 1.5);
    Checks.requireArgument(true, "interval", "be short", Duration.ofNanos(1));
  }

  @Test
  void requireNonNull_null_namesParameter() {
    assertThatThrownBy(() -> Checks.requireNonNull(null, "ticker"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("ticker must not be null");
    assertThat(Checks.requireNonNull("x", "ticker")).isEqualTo("x");
  }

  @Test
  void requirePositive_zeroOrNegative_namesParameterAndValue() {
    assertThatThrownBy(() -> Checks.requirePositive(0, "permits"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("permits must be positive, was 0");
    assertThatThrownBy(() -> Checks.requirePositive(-3, "permits"))
        .hasMessage("permits must be positive, was -3");
    assertThat(Checks.requirePositive(1, "permits")).isEqualTo(1);
  }

  @Test
  void requireNonNegative_negative_namesParameterAndValue() {
    assertThatThrownBy(() -> Checks.requireNonNegative(-1, "amount"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("amount must not be negative, was -1");
    assertThat(Checks.requireNonNegative(0, "amount")).isZero();
  }

  @Test
  void requireBetween_outside_namesBoundsAndValue() {
    assertThatThrownBy(() -> Checks.requireBetween(0, 1, 10, "maxKeys"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxKeys must be between 1 and 10, was 0");
    assertThatThrownBy(() -> Checks.requireBetween(11, 1, 10, "maxKeys"))
        .hasMessage("maxKeys must be between 1 and 10, was 11");
    assertThat(Checks.requireBetween(1, 1, 10, "maxKeys")).isEqualTo(1);
    assertThat(Checks.requireBetween(10, 1, 10, "maxKeys")).isEqualTo(10);
  }

  @Test
  void requirePositiveNanos_badDurations_namesParameterAndValue() {
    assertThatThrownBy(() -> Checks.requirePositiveNanos(null, "window"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("window must not be null");
    assertThatThrownBy(() -> Checks.requirePositiveNanos(Duration.ZERO, "window"))
        .hasMessage("window must be positive, was PT0S");
    assertThatThrownBy(() -> Checks.requirePositiveNanos(Duration.ofMillis(-1), "window"))
        .hasMessage("window must be positive, was PT-0.001S");
    assertThatThrownBy(() -> Checks.requirePositiveNanos(Duration.ofDays(106_752), "window"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("window must fit in 9223372036854775807 nanoseconds, was PT2562048H")
        .hasCauseInstanceOf(ArithmeticException.class);
    assertThat(Checks.requirePositiveNanos(Duration.ofMillis(2), "window")).isEqualTo(2_000_000);
  }

  @Test
  void setOnce_unsetOrSameValue_returnsValue() {
    assertThat(Checks.setOnce(null, 5L, "maxKeys")).isEqualTo(5L);
    assertThat(Checks.setOnce(5L, 5L, "maxKeys")).isEqualTo(5L);
  }

  @Test
  void setOnce_differentValue_namesSetterAndBothValues() {
    assertThatThrownBy(() -> Checks.setOnce(5L, 6L, "maxKeys"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("maxKeys was already set to 5, cannot set it to 6");
  }

  @Test
  void requirePositiveAtMost_outsideTheRange_namesParameterBoundAndValue() {
    Duration max = Duration.ofHours(1);
    assertThat(Checks.requirePositiveAtMost(Duration.ofMillis(50), max, "commandTimeout"))
        .isEqualTo(Duration.ofMillis(50));
    assertThat(Checks.requirePositiveAtMost(max, max, "commandTimeout")).isEqualTo(max);
    for (Duration bad :
        new Duration[] {null, Duration.ZERO, Duration.ofNanos(-1), max.plusNanos(1)}) {
      assertThatThrownBy(() -> Checks.requirePositiveAtMost(bad, max, "commandTimeout"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("commandTimeout must be positive and at most PT1H, was " + bad);
    }
  }
}
