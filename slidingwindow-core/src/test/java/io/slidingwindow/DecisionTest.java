package io.slidingwindow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DecisionTest {

  private static final Limit LIMIT = Limit.of(10, Duration.ofSeconds(1));

  @Test
  void granted_figures_allowedWithoutRetryAfter() {
    Decision d = Decision.granted(3, Duration.ofMillis(400), LIMIT);
    assertThat(d.allowed()).isTrue();
    assertThat(d.remaining()).isEqualTo(3);
    assertThat(d.retryAfter()).isZero();
    assertThat(d.resetAfter()).isEqualTo(Duration.ofMillis(400));
    assertThat(d.limit()).isSameAs(LIMIT);
  }

  @Test
  void refused_figures_notAllowedWithRetryAfter() {
    Decision d = Decision.refused(1, Duration.ofMillis(250), Duration.ofMillis(900), LIMIT);
    assertThat(d.allowed()).isFalse();
    assertThat(d.remaining()).isEqualTo(1);
    assertThat(d.retryAfter()).isEqualTo(Duration.ofMillis(250));
    assertThat(d.resetAfter()).isEqualTo(Duration.ofMillis(900));
    assertThat(d.limit()).isSameAs(LIMIT);
  }

  @Test
  void factories_badFigures_throwNamingParameterAndValue() {
    assertThatThrownBy(() -> Decision.granted(-1, Duration.ZERO, LIMIT))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("remaining must not be negative, was -1");
    assertThatThrownBy(() -> Decision.granted(0, Duration.ofNanos(-1), LIMIT))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("resetAfter must be zero or positive, was PT-0.000000001S");
    assertThatThrownBy(() -> Decision.refused(0, null, Duration.ZERO, LIMIT))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("retryAfter must be zero or positive, was null");
    assertThatThrownBy(() -> Decision.refused(0, Duration.ZERO, Duration.ZERO, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("limit must not be null");
  }

  @Test
  void equalsAndToString_sameFigures_equalAndReadable() {
    Decision a = Decision.refused(0, Duration.ofMillis(500), Duration.ofSeconds(1), LIMIT);
    Decision b = Decision.refused(0, Duration.ofMillis(500), Duration.ofSeconds(1), LIMIT);
    assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
    assertThat(a).isNotEqualTo(Decision.granted(0, Duration.ofSeconds(1), LIMIT));
    assertThat(a)
        .hasToString(
            "Decision[allowed=false, remaining=0, retryAfter=PT0.5S, resetAfter=PT1S, limit="
                + LIMIT
                + "]");
  }
}
