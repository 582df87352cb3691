package io.slidingwindow.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A key's rolling counters when runs leave from the middle of the ring, when the ring has wrapped,
 * and when the sum had saturated and must be added up again from the runs still counted.
 */
class CounterRunsEdgesTest {

  private static final long INTERVAL = 10;

  @Test
  void count_runsOfDifferentCountsLeavingOneByOne_dropsEachRunsOwnCount() {
    CounterRuns runs = new CounterRuns(4, INTERVAL, 0);
    runs.add(0, 1);
    for (int i = 0; i < 3; i++) {
      runs.add(10, 1);
    }
    runs.add(20, 1);
    runs.add(20, 1);
    assertThat(runs.count(39)).isEqualTo(6);
    assertThat(runs.count(40)).isEqualTo(5);
    assertThat(runs.count(50)).isEqualTo(2);
    assertThat(runs.sum(50)).isEqualTo(2);
    assertThat(runs.latest()).isEqualTo(50);
  }

  @Test
  void sum_saturatedByARunThatLeaves_isAddedUpAgainAcrossTheWrappedRing() {
    CounterRuns runs = new CounterRuns(4, INTERVAL, 0);
    runs.add(0, 5);
    runs.add(10, Long.MAX_VALUE);
    runs.add(20, 1);
    runs.add(30, 2);
    // Bucket 0 leaves; bucket 4 takes its slot at the start of the ring, after bucket 3's.
    assertThat(runs.add(40, 3)).isEqualTo(Long.MAX_VALUE);
    assertThat(runs.capacity()).isEqualTo(4);
    // Bucket 1, whose amount saturated the sum, leaves: the sum is added up again, wrapping.
    assertThat(runs.sum(50)).isEqualTo(6);
    assertThat(runs.count(50)).isEqualTo(3);
    assertThat(runs.storedRuns()).isEqualTo(3);
  }

  @Test
  void add_ringThatWrappedAndIsFull_growsKeepingTheRunsInOrder() {
    CounterRuns runs = new CounterRuns(8, INTERVAL, 0);
    runs.add(0, 1);
    runs.add(70, 2);
    // Bucket 0 leaves and bucket 8 takes its slot, ahead of bucket 7's: the ring has wrapped.
    runs.add(80, 4);
    assertThat(runs.capacity()).isEqualTo(2);
    runs.add(90, 8);
    assertThat(runs.capacity()).isEqualTo(4);
    assertThat(runs.sum(90)).isEqualTo(14);
    // Buckets 7, 8 and 9 leave in that order.
    assertThat(runs.sum(150)).isEqualTo(12);
    assertThat(runs.sum(160)).isEqualTo(8);
    assertThat(runs.sum(170)).isZero();
  }

  @Test
  void latest_isTheNewestTimeSeenAndNeverGoesBack() {
    CounterRuns runs = new CounterRuns(4, INTERVAL, 7);
    assertThat(runs.latest()).isEqualTo(7);
    runs.add(35, 1);
    runs.add(20, 1);
    assertThat(runs.latest()).isEqualTo(35);
  }
}
