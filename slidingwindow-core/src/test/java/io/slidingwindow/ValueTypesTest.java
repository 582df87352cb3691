package io.slidingwindow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Equality, hash codes and text of the core's value types, and the checks of their factories at the
 * edges: values that differ in any one figure are unequal and (for these small figures) hash
 * differently, equal values hash alike, and an empty snapshot's minimum and maximum do not count.
 */
class ValueTypesTest {

  private static final Limit LIMIT = Limit.of(10, Duration.ofSeconds(1));
  private static final Limit OTHER = Limit.of(10, Duration.ofSeconds(2));

  private static void assertAllDifferent(List<?> values) {
    for (int i = 0; i < values.size(); i++) {
      for (int j = i + 1; j < values.size(); j++) {
        assertThat(values.get(i))
            .as("%s and %s", values.get(i), values.get(j))
            .isNotEqualTo(values.get(j));
        assertThat(values.get(i).hashCode())
            .as("hash codes of %s and %s", values.get(i), values.get(j))
            .isNotEqualTo(values.get(j).hashCode());
      }
    }
  }

  @Test
  void decision_differingInOneFigure_isUnequalAndHashesDifferently() {
    Decision base = Decision.refused(1, Duration.ofSeconds(1), Duration.ofSeconds(3), LIMIT);
    assertAllDifferent(
        List.of(
            base,
            Decision.granted(1, Duration.ofSeconds(3), LIMIT),
            Decision.refused(1, Duration.ZERO, Duration.ofSeconds(3), LIMIT),
            Decision.refused(2, Duration.ofSeconds(1), Duration.ofSeconds(3), LIMIT),
            Decision.refused(1, Duration.ofSeconds(2), Duration.ofSeconds(3), LIMIT),
            Decision.refused(1, Duration.ofSeconds(1), Duration.ofSeconds(4), LIMIT),
            Decision.refused(1, Duration.ofSeconds(1), Duration.ofSeconds(3), OTHER)));
    Decision same = Decision.refused(1, Duration.ofSeconds(1), Duration.ofSeconds(3), LIMIT);
    assertThat(base).isEqualTo(same).hasSameHashCodeAs(same).isNotEqualTo("a decision");
    // A grant and a refusal with the same figures differ only in whether they allowed.
    assertThat(Decision.granted(1, Duration.ofSeconds(3), LIMIT))
        .isNotEqualTo(Decision.refused(1, Duration.ZERO, Duration.ofSeconds(3), LIMIT));
  }

  @Test
  void limit_differingInOneFigure_isUnequalAndHashesDifferently() {
    assertAllDifferent(
        List.of(
            Limit.exact(1, Duration.ofNanos(10)),
            Limit.exact(2, Duration.ofNanos(10)),
            Limit.exact(1, Duration.ofNanos(20)),
            Limit.of(1, Duration.ofNanos(20)).withPrecision(Duration.ofNanos(2))));
    assertThat(Limit.exact(1, Duration.ofNanos(10)))
        .hasSameHashCodeAs(Limit.exact(1, Duration.ofNanos(10)));
  }

  @Test
  void isExact_onlyForOneNanosecondPrecision() {
    assertThat(Limit.exact(5, Duration.ofSeconds(1)).isExact()).isTrue();
    assertThat(Limit.of(5, Duration.ofSeconds(1)).isExact()).isFalse();
    assertThat(Limit.of(5, Duration.ofNanos(10)).withPrecision(Duration.ofNanos(2)).isExact())
        .isFalse();
  }

  @Test
  void parse_slashFirst_saysThePermitsAreMissing() {
    assertThatThrownBy(() -> Limit.parse("/10s"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("limit's permits must be a whole number, was '' in '/10s'");
  }

  private static RollingSnapshot snapshot(
      double sum, long count, double min, double max, long lengthNanos) {
    return new RollingSnapshot(sum, count, min, max, lengthNanos);
  }

  @Test
  void snapshot_differingInOneFigure_isUnequalAndHashesDifferently() {
    assertAllDifferent(
        List.of(
            snapshot(3, 2, 1, 2, 100),
            // Neighbouring doubles: their hash codes differ in the lowest bits only.
            snapshot(Math.nextUp(3.0), 2, 1, 2, 100),
            snapshot(3, 3, 1, 2, 100),
            snapshot(3, 2, Math.nextUp(1.0), 2, 100),
            snapshot(3, 2, 1, 3, 100),
            snapshot(3, 2, 1, 2, 200)));
    assertThat(snapshot(3, 2, 1, 2, 100))
        .isEqualTo(snapshot(3, 2, 1, 2, 100))
        .hasSameHashCodeAs(snapshot(3, 2, 1, 2, 100))
        .isNotEqualTo("a snapshot");
  }

  @Test
  void snapshot_empty_equalsAnyEmptyOneOfItsLengthWhateverItsMinimumAndMaximum() {
    RollingSnapshot empty = snapshot(0, 0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 100);
    RollingSnapshot other = snapshot(0, 0, 5, 7, 100);
    assertThat(empty).isEqualTo(other).hasSameHashCodeAs(other);
    assertThat(empty).isNotEqualTo(snapshot(0, 0, 5, 7, 200));
    assertThat(empty.isEmpty()).isTrue();
    assertThat(snapshot(1, 1, 1, 1, 100).isEmpty()).isFalse();
  }

  @Test
  void snapshot_text_showsMinimumAndMaximumOnlyWhenThereAreValues() {
    assertThat(snapshot(3, 2, 1, 2, 1_000_000))
        .hasToString("RollingSnapshot[sum=3.0, count=2, min=1.0, max=2.0, length=PT0.001S]");
    assertThat(snapshot(0, 0, 1, 2, 1_000_000))
        .hasToString("RollingSnapshot[sum=0.0, count=0, length=PT0.001S]");
  }

  @Test
  void bounded_keysDifferingOnlyInACharactersHighByte_getDifferentDigests() {
    String head = "k".repeat(300);
    String low = LimiterKeys.bounded(head + "a");
    String high = LimiterKeys.bounded(head + "\u0161");
    assertThat(low).startsWith("sha256:");
    assertThat(high).startsWith("sha256:").isNotEqualTo(low);
  }
}
