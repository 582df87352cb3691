package io.slidingwindow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Rolling windows and counters at the bounds of their settings: a span of {@code size * interval}
 * that just overflows a long, the first and last stripe counts, and the settings they report.
 */
class RollingEdgesTest {

  /** 2^62 ns: two of these overflow a long into its sign bit, with no bit above it. */
  private static final Duration HALF_OF_THE_LONGEST = Duration.ofNanos(1L << 62);

  @Test
  void build_spanThatOverflowsIntoTheSignBit_isRejectedNamingTheInterval() {
    assertThatThrownBy(() -> RollingWindow.builder().size(2).interval(HALF_OF_THE_LONGEST).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("interval must fit 2 times in " + Long.MAX_VALUE);
    assertThatThrownBy(() -> RollingCounters.builder(2, HALF_OF_THE_LONGEST))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("interval must fit 2 times in " + Long.MAX_VALUE);
    assertThat(
            RollingWindow.builder()
                .size(1)
                .interval(HALF_OF_THE_LONGEST)
                .ticker(new ManualTicker(0))
                .build()
                .size())
        .isEqualTo(1);
  }

  @Test
  void stripes_oneAndSixtyFour_areAccepted() {
    for (int stripes : new int[] {1, 64}) {
      RollingWindow window =
          RollingWindow.builder().stripes(stripes).ticker(new ManualTicker(0)).build();
      window.add(2.0);
      assertThat(window.reduce().sum()).isEqualTo(2.0);
    }
  }

  @Test
  void settings_areReportedAsBuilt() {
    RollingWindow window =
        RollingWindow.builder()
            .size(5)
            .interval(Duration.ofMillis(20))
            .ignoreCurrent(true)
            .ticker(new ManualTicker(0))
            .build();
    assertThat(window.ignoresCurrent()).isTrue();
    assertThat(window).hasToString("RollingWindow[5 x PT0.02S, ignoring the current bucket]");
    RollingWindow plain = RollingWindow.builder().ticker(new ManualTicker(0)).build();
    assertThat(plain.ignoresCurrent()).isFalse();
    RollingCounters<String> counters =
        RollingCounters.builder(6, Duration.ofMillis(10)).ticker(new ManualTicker(0)).build();
    assertThat(counters.size()).isEqualTo(6);
    assertThat(counters.interval()).isEqualTo(Duration.ofMillis(10));
    assertThat(counters.toString()).startsWith("RollingCounters[6 x PT0.01S] tracking 0 of");
  }
}
