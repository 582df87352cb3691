package io.slidingwindow.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CounterRunsTest {

  private static final long INTERVAL = 100;

  /** The ring grows with the non-empty buckets held at once, never past size, and never shrinks. */
  @Test
  void capacity_busyThenQuietKey_growsToPeakWithinSizeAndKeepsIt() {
    CounterRuns sums = new CounterRuns(10, INTERVAL, 0);
    assertThat(sums.capacity()).isEqualTo(2);
    for (long bucket = 0; bucket < 5; bucket++) {
      sums.add(bucket * INTERVAL, 1);
    }
    assertThat(sums.storedRuns()).isEqualTo(5);
    assertThat(sums.capacity()).isEqualTo(8); // 2, 4, 8: at most twice the 5 runs held
    sums.add(100 * INTERVAL, 1); // every earlier bucket has left
    assertThat(sums.storedRuns()).isEqualTo(1);
    assertThat(sums.capacity()).isEqualTo(8);
    for (long bucket = 101; bucket < 130; bucket++) {
      sums.add(bucket * INTERVAL, 1);
    }
    assertThat(sums.storedRuns()).isEqualTo(10);
    assertThat(sums.capacity()).isEqualTo(10);
  }
}
