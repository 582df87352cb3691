package io.slidingwindow.internal;

/**
 * The fields of a {@link Stripe} with cache-line padding around them, as a chain of superclasses:
 * the JVM lays out a superclass's fields before a subclass's, so the padding stays where it is put
 * (the layout of JDK's {@code Striped64} cells and JCTools' queues).
 */
final class StripePadding {

  private StripePadding() {}

  /**
   * Padding before a stripe's fields, so that they never share a cache line with another stripe or
   * the shared stripe array. The int fills the gap after the object header, where the field layout
   * would otherwise put a subclass's int.
   */
  @SuppressWarnings("unused")
  abstract static class Pad {
    int p00;
    long p01, p02, p03, p04, p05, p06, p07, p08;
  }

  /**
   * The lock word and the newest bucket's figures, together on one cache line (most often; the JVM
   * does not align objects to lines): every add writes the word twice and the figures once, and a
   * reduce on another processor reads them all, so one line moves between them instead of two.
   */
  abstract static class SeqField extends Pad {
    /**
     * The lock and a sequence lock in one word (as {@code StampedLock}): odd while a thread holds
     * the stripe, and moved on by two at each release, so that a reader without the lock can tell
     * whether a writer ran while it read.
     */
    volatile int seq;

    /** The values added in the newest bucket, {@code currentBucket}: how many. */
    long hotCount;

    /** Their sum. */
    double hotSum;

    /** The smallest; positive infinity when none. */
    double hotMin = Double.POSITIVE_INFINITY;

    /** The largest; negative infinity when none. */
    double hotMax = Double.NEGATIVE_INFINITY;
  }

  /**
   * Padding between the lock word and the fields that change only when the stripe moves to a new
   * bucket, so that a reduce reading those does not pull the adder's hottest line away from it.
   */
  @SuppressWarnings("unused")
  abstract static class SeqPad extends SeqField {
    int r00;
    long r01, r02, r03, r04, r05, r06, r07, r08;
  }

  /** The fields of a stripe, written only by the holder of its lock, {@code seq}. */
  abstract static class Fields extends SeqPad {
    /**
     * A second sequence word for rolls only: odd while a roll moves {@code current} and resets a
     * slot. Between rolls, adds write the current slot and no other, so a reader can take the other
     * slots without caring how many adds run meanwhile.
     */
    volatile int rolls;

    /**
     * The index in {@code slots} of {@code currentBucket}'s slot, which holds stale figures while
     * the bucket is the newest (its figures are the {@code hot} fields) and gets them when the
     * stripe moves on.
     */
    int current;

    /** The newest bucket this stripe has seen; its slot is {@code current}. */
    long currentBucket;

    /** The first time past {@code currentBucket}: earlier times fall in it. */
    long currentEnd;

    /**
     * {@code size} slots of {@link StripedBuckets#SLOT} longs each: the figures of the older
     * buckets of the ring, which no add writes.
     */
    final long[] slots;

    Fields(int size) {
      this.slots = new long[size * StripedBuckets.SLOT];
    }
  }
}
