package io.slidingwindow.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A stripe keeps its newest bucket's figures apart from the ring and moves them in when it rolls
 * on: both ways of reading it (without the lock, and under it, where a reduce falls back after
 * racing adders) must count the newest bucket once and every covered older bucket once.
 */
class StripeTest {

  private static final int SIZE = 3;
  private static final long INTERVAL = 100;

  /** Adds in buckets 0 to 3 of a ring of three, so bucket 0's slot is the newest's, stale. */
  private static Stripe stripeOverFourBuckets() {
    Stripe stripe = new Stripe(SIZE, INTERVAL);
    double[][] valuesPerBucket = {{100, 200}, {1, 5}, {-2}, {3, 4}};
    for (int bucket = 0; bucket < valuesPerBucket.length; bucket++) {
      for (double value : valuesPerBucket[bucket]) {
        stripe.add(bucket * INTERVAL + 10, value, 0, SIZE, INTERVAL);
      }
    }
    return stripe;
  }

  private static StripedBuckets.Totals read(
      Stripe stripe, long oldest, long newest, boolean locked) {
    StripedBuckets.Totals totals = new StripedBuckets.Totals();
    if (locked) {
      stripe.lock();
      try {
        stripe.readLocked(totals, oldest, newest);
      } finally {
        stripe.unlock();
      }
    } else {
      stripe.readInto(totals, oldest, newest);
    }
    return totals;
  }

  @Test
  void read_coveredBuckets_countsTheNewestFromItsFiguresAndOlderFromTheRing() {
    Stripe stripe = stripeOverFourBuckets();
    for (boolean locked : new boolean[] {false, true}) {
      StripedBuckets.Totals all = read(stripe, 1, 3, locked);
      assertThat(all.count()).as("locked %s", locked).isEqualTo(5);
      assertThat(all.sum()).as("locked %s", locked).isEqualTo(11.0);
      assertThat(all.min()).as("locked %s", locked).isEqualTo(-2.0);
      assertThat(all.max()).as("locked %s", locked).isEqualTo(5.0);

      StripedBuckets.Totals newestOnly = read(stripe, 3, 3, locked);
      assertThat(newestOnly.count()).as("locked %s", locked).isEqualTo(2);
      assertThat(newestOnly.sum()).as("locked %s", locked).isEqualTo(7.0);

      StripedBuckets.Totals olderOnly = read(stripe, 1, 2, locked);
      assertThat(olderOnly.count()).as("locked %s", locked).isEqualTo(3);
      assertThat(olderOnly.max()).as("locked %s", locked).isEqualTo(5.0);
    }
  }

  @Test
  void read_rangeReachingTheNewestBucketsStaleSlot_neverCountsTheLeftBucketTwice() {
    Stripe stripe = stripeOverFourBuckets();
    for (boolean locked : new boolean[] {false, true}) {
      // Bucket 0 has left the ring: its figures linger in the slot bucket 3 now owns.
      StripedBuckets.Totals totals = read(stripe, 0, 3, locked);
      assertThat(totals.count()).as("locked %s", locked).isEqualTo(5);
      assertThat(totals.max()).as("locked %s", locked).isEqualTo(5.0);
    }
  }
}
