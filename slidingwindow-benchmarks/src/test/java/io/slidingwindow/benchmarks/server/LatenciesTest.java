package io.slidingwindow.benchmarks.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class LatenciesTest {

  @Test
  void atPercentile_oneToTenThousandMicros_isThatRankWithinATenthOfAPercent() {
    Latencies latencies = new Latencies();
    // Recorded in a scrambled order: the histogram must not depend on it.
    for (int i = 0; i < 10_000; i++) {
      latencies.record(((i * 7_919L) % 10_000 + 1) * 1_000);
    }

    assertThat(latencies.count()).isEqualTo(10_000);
    assertThat((double) latencies.atPercentile(50)).isCloseTo(5_000_000, within(5_000.0));
    assertThat((double) latencies.atPercentile(99)).isCloseTo(9_900_000, within(9_900.0));
    assertThat((double) latencies.atPercentile(99.9)).isCloseTo(9_990_000, within(9_990.0));
    assertThat((double) latencies.max()).isCloseTo(10_000_000, within(10_000.0));
  }

  @Test
  void atPercentile_oneSlowCallInAThousand_showsAtP999NotAtP99() {
    Latencies latencies = new Latencies();
    for (int i = 0; i < 998; i++) {
      latencies.record(1_000_000);
    }
    latencies.record(500_000_000);
    latencies.record(500_000_000);

    assertThat(latencies.atPercentile(99)).isLessThan(1_001_000);
    assertThat(latencies.atPercentile(99.9)).isGreaterThan(499_000_000);
  }

  @Test
  void record_overAMinute_isKeptAsAMinute() {
    Latencies latencies = new Latencies();
    latencies.record(Long.MAX_VALUE);

    assertThat((double) latencies.max())
        .isCloseTo((double) Latencies.HIGHEST_NANOS, within(Latencies.HIGHEST_NANOS / 1000.0));
  }

  @Test
  void badArguments_throwNamingTheParameter() {
    Latencies latencies = new Latencies();
    assertThatThrownBy(() -> latencies.record(-1)).hasMessageContaining("nanos");
    assertThatThrownBy(() -> latencies.atPercentile(100.1)).hasMessageContaining("percentile");
    assertThatThrownBy(() -> latencies.atPercentile(Double.NaN)).hasMessageContaining("percentile");
  }

  @Test
  void millis_nanos_twoDecimals() {
    assertThat(Latencies.millis(1_234_567)).isEqualTo("1.23");
    assertThat(Latencies.millis(0)).isEqualTo("0.00");
  }
}
