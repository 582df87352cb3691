package io.slidingwindow.server.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DashboardTest {

  @Test
  void window_wholeUnits_largestUnitThatDivides() {
    assertThat(Dashboard.window(Duration.ofDays(30))).isEqualTo("30d");
    assertThat(Dashboard.window(Duration.ofHours(36))).isEqualTo("36h");
    assertThat(Dashboard.window(Duration.ofMinutes(90))).isEqualTo("90m");
    assertThat(Dashboard.window(Duration.ofSeconds(90))).isEqualTo("90s");
    assertThat(Dashboard.window(Duration.ofMillis(1500))).isEqualTo("1500ms");
    assertThat(Dashboard.window(Duration.ofNanos(1001))).isEqualTo("1001ns");
    assertThat(Dashboard.window(Duration.ofNanos(2000))).isEqualTo("2us");
  }

  @Test
  void window_beyondNanosecondRange_isoText() {
    Duration huge = Duration.ofSeconds(Long.MAX_VALUE / 2);
    assertThat(Dashboard.window(huge)).isEqualTo(huge.toString());
  }
}
