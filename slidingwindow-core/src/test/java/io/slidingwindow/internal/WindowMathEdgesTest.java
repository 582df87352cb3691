package io.slidingwindow.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The window arithmetic at its saturation points and for arguments of either sign. */
class WindowMathEdgesTest {

  @Test
  void rollingLeavesAt_isTheEndOfTheBucketSizeMinusOneLater() {
    assertThat(WindowMath.rollingLeavesAt(3, 4, 10)).isEqualTo(70);
    assertThat(WindowMath.rollingLeavesAt(0, 1, 10)).isEqualTo(10);
    assertThat(WindowMath.rollingLeavesAt(Long.MAX_VALUE - 1, 4, 10)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void saturatedAdd_argumentsOfEitherSign_addExactlyUnlessTheSumOverflows() {
    assertThat(WindowMath.saturatedAdd(5, -3)).isEqualTo(2);
    assertThat(WindowMath.saturatedAdd(-5, 3)).isEqualTo(-2);
    assertThat(WindowMath.saturatedAdd(Long.MAX_VALUE, 1)).isEqualTo(Long.MAX_VALUE);
    assertThat(WindowMath.saturatedAdd(Long.MAX_VALUE - 1, 1)).isEqualTo(Long.MAX_VALUE);
  }
}
