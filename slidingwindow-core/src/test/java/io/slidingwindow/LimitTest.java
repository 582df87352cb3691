package io.slidingwindow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class LimitTest {

  @Test
  void of_defaultPrecision_isAThousandthOfTheWindowButNotBelowOneMicrosecondNorAboveTheWindow() {
    assertThat(Limit.of(100, Duration.ofSeconds(1)).precision()).isEqualTo(Duration.ofMillis(1));
    assertThat(Limit.of(100, Duration.ofMillis(10)).precision())
        .isEqualTo(Duration.ofNanos(10_000));
    assertThat(Limit.of(100, Duration.ofMillis(1)).precision()).isEqualTo(Duration.ofNanos(1_000));
    assertThat(Limit.of(100, Duration.ofNanos(500_000)).precision())
        .isEqualTo(Duration.ofNanos(1_000));
    assertThat(Limit.of(100, Duration.ofNanos(300)).precision()).isEqualTo(Duration.ofNanos(300));
  }

  @Test
  void exact_tracksEveryNanosecond() {
    Limit limit = Limit.exact(5, Duration.ofSeconds(1));

    assertThat(limit.isExact()).isTrue();
    assertThat(limit.precisionNanos()).isEqualTo(1);
    assertThat(limit.maxStoredRuns()).isEqualTo(5);
  }

  @Test
  void maxStoredRuns_isTheSmallerOfPermitsAndBucketsPlusOne() {
    assertThat(Limit.of(10_000_000, Duration.ofSeconds(1)).maxStoredRuns()).isEqualTo(1_001);
    assertThat(Limit.of(10, Duration.ofSeconds(1)).maxStoredRuns()).isEqualTo(10);
    // 1 s in buckets of 300 ms spans ceil(1000 / 300) = 4 buckets, so 5 can be counted at once.
    assertThat(
            Limit.of(100, Duration.ofSeconds(1))
                .withPrecision(Duration.ofMillis(300))
                .maxStoredRuns())
        .isEqualTo(5);
  }

  @Test
  void of_invalidArguments_areRejectedNamingTheParameterAndValue() {
    assertThatThrownBy(() -> Limit.of(0, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("permits must be positive, was 0");
    assertThatThrownBy(() -> Limit.of(-3, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("permits must be positive, was -3");
    assertThatThrownBy(() -> Limit.of(1, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("window must not be null");
    assertThatThrownBy(() -> Limit.of(1, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("window must be positive, was PT0S");
    assertThatThrownBy(() -> Limit.of(1, Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("window must be positive");
    assertThatThrownBy(() -> Limit.of(1, Duration.ofDays(106_752)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("window must fit in")
        .hasMessageContaining("PT2562048H");
  }

  @Test
  void withPrecision_invalidPrecision_isRejectedNamingTheParameterAndValue() {
    Limit limit = Limit.of(10, Duration.ofSeconds(1));

    assertThatThrownBy(() -> limit.withPrecision(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("precision must not be null");
    assertThatThrownBy(() -> limit.withPrecision(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("precision must be positive, was PT0S");
    assertThatThrownBy(() -> limit.withPrecision(Duration.ofMillis(1001)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("precision must not exceed the window PT1S, was PT1.001S");
    assertThat(limit.withPrecision(Duration.ofSeconds(1)).precisionNanos())
        .isEqualTo(1_000_000_000L);
  }

  @Test
  void equalsAndToString_reflectPermitsWindowAndPrecision() {
    Limit a = Limit.of(100, Duration.ofSeconds(1));
    @SuppressWarnings("CanonicalDuration") // the same second spelled in other units, on purpose
    Duration sameSecond = Duration.ofMillis(1000);

    assertThat(a).isEqualTo(Limit.of(100, sameSecond)).hasSameHashCodeAs(Limit.of(100, sameSecond));
    assertThat(a).isNotEqualTo(a.withPrecision(Duration.ofMillis(2)));
    assertThat(a).isNotEqualTo(Limit.of(101, Duration.ofSeconds(1)));
    assertThat(a).hasToString("100 per PT1S (precision PT0.001S)");
  }
}
