package io.slidingwindow.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class WindowMathTest {

  @Test
  void bucket_floorsTowardNegativeInfinity() {
    assertThat(WindowMath.bucket(0, 10)).isEqualTo(0);
    assertThat(WindowMath.bucket(9, 10)).isEqualTo(0);
    assertThat(WindowMath.bucket(10, 10)).isEqualTo(1);
    assertThat(WindowMath.bucket(-1, 10)).isEqualTo(-1);
  }

  @Test
  void oldestBucket_isTheBucketOfTheFirstInstantInsideTheWindow() {
    // Window 100, precision 10, at t = 250: the window is (150, 250], whose first instant 151 is
    // in bucket 15; bucket 15 also holds 150, outside, which is what makes the count conservative.
    assertThat(WindowMath.oldestBucket(250, 100, 10)).isEqualTo(15);
    assertThat(WindowMath.oldestBucket(259, 100, 10)).isEqualTo(16);
    // Exact precision: the window (150, 250] starts at instant 151.
    assertThat(WindowMath.oldestBucket(250, 100, 1)).isEqualTo(151);
  }

  @Test
  void leavesAt_isTheFirstTimeTheBucketIsNoLongerCounted() {
    long leaves = WindowMath.leavesAt(15, 100, 10);

    assertThat(leaves).isEqualTo(259);
    assertThat(WindowMath.oldestBucket(leaves - 1, 100, 10)).isEqualTo(15);
    assertThat(WindowMath.oldestBucket(leaves, 100, 10)).isEqualTo(16);
  }

  @Test
  void leavesAtAndBucketEnd_saturateInsteadOfOverflowing() {
    assertThat(WindowMath.bucketEnd(Long.MAX_VALUE / 3, 4)).isEqualTo(Long.MAX_VALUE);
    assertThat(WindowMath.leavesAt(Long.MAX_VALUE / 10 - 1, 10, 10)).isEqualTo(Long.MAX_VALUE);
    assertThat(WindowMath.leavesAt(0, Long.MAX_VALUE, Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void maxRuns_isTheSmallerOfPermitsAndBucketsPlusOne() {
    assertThat(WindowMath.bucketsPerWindow(1_000, 300)).isEqualTo(4);
    assertThat(WindowMath.maxRuns(3, 1_000, 300)).isEqualTo(3);
    assertThat(WindowMath.maxRuns(30, 1_000, 300)).isEqualTo(5);
    assertThat(WindowMath.maxRuns(10, 1_000_000_000, 1)).isEqualTo(10);
    assertThat(WindowMath.maxRuns(Long.MAX_VALUE, Long.MAX_VALUE, 1)).isEqualTo(Long.MAX_VALUE);
  }
}
