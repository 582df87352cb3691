package io.slidingwindow.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/** One ring of buckets under a spin lock. Not itself thread-safe: callers hold its lock. */
@SuppressWarnings("unused")
final class Stripe extends StripePadding.Fields {
  private static final VarHandle SEQ;
  private static final VarHandle ROLLS;
  private static final VarHandle CURRENT_BUCKET;

  static {
    try {
      SEQ = MethodHandles.lookup().findVarHandle(StripePadding.SeqField.class, "seq", int.class);
      ROLLS = MethodHandles.lookup().findVarHandle(StripePadding.Fields.class, "rolls", int.class);
      CURRENT_BUCKET =
          MethodHandles.lookup()
              .findVarHandle(StripePadding.Fields.class, "currentBucket", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  long q01, q02, q03, q04, q05, q06, q07, q08;

  Stripe(int size, long intervalNanos) {
    super(size);
    for (int i = 0; i < slots.length; i += StripedBuckets.SLOT) {
      slots[i] = Long.MIN_VALUE; // never a covered bucket: those are at least -size + 1
    }
    // The clock starts in bucket 0; earlier readings (a clock that went back) fall in it too.
    roll(0, size, intervalNanos);
  }

  boolean tryLock() {
    // The CAS is a full fence: the holder sees every write of the previous holder, made before
    // its release, and no write of the holder's becomes visible before the word turns odd.
    int v = seq;
    return (v & 1) == 0 && SEQ.compareAndSet(this, v, v + 1);
  }

  // After a short spin, yielding lets a descheduled holder finish its few writes on a busy machine.
  @SuppressWarnings("ThreadPriorityCheck")
  void lock() {
    for (int attempt = 0; !tryLock(); attempt++) {
      if (attempt < StripedBuckets.SPINS_BEFORE_YIELD) {
        Thread.onSpinWait();
      } else {
        Thread.yield();
      }
    }
  }

  void unlock() {
    // Release: every write made while holding the stripe is visible before the word turns even.
    SEQ.setRelease(this, seq + 1);
  }

  /** The newest bucket, read without the lock: possibly stale, never torn. */
  long currentBucketRacy() {
    return (long) CURRENT_BUCKET.getOpaque(this);
  }

  /**
   * Adds {@code value} at time {@code now}, in the bucket of {@code now} or {@code newestBucket}
   * (the window's newest), whichever is newer; returns the stripe's newest bucket after the add.
   */
  long add(long now, double value, long newestBucket, int size, long intervalNanos) {
    if (now >= currentEnd) {
      // Past this stripe's newest bucket: move to the bucket of now, or to the window's newest
      // if another stripe or a reduce has gone further (this clock read is then behind).
      roll(Math.max(newestBucket, WindowMath.bucket(now, intervalNanos)), size, intervalNanos);
    } else if (currentBucket < newestBucket) {
      // Another stripe or a reduce has moved the window on: a stale clock read must not land
      // behind it.
      roll(newestBucket, size, intervalNanos);
    }
    hotCount++;
    hotSum += value;
    // Math.min and Math.max, as a reduce merges slots with: -0.0 is below 0.0.
    hotMin = Math.min(hotMin, value);
    hotMax = Math.max(hotMax, value);
    return currentBucket;
  }

  /**
   * Adds the buckets stamped {@code oldest} through {@code newest} to {@code totals}, without
   * blocking adders in the common case. Between two rolls adds write only the newest bucket's
   * figures (the {@code hot} fields), so a pass reads the ring's other slots as they are and the
   * newest bucket under {@code seq} (retried if an add ran meanwhile), and is kept only if no roll
   * ran meanwhile; every bucket is thus read whole, and the pass equals the stripe at one instant.
   * After a few failed passes it takes the lock instead.
   */
  void readInto(StripedBuckets.Totals totals, long oldest, long newest) {
    for (int attempt = 0; attempt < StripedBuckets.OPTIMISTIC_READS; attempt++) {
      int r = rolls; // volatile read: the reads below cannot move above it
      if ((r & 1) == 0) {
        totals.startPass();
        addOlderBuckets(totals, oldest, newest);
        if (readCurrent(totals, oldest, newest)) {
          // The reads above cannot move below this fence, so an unchanged word proves that no
          // roll ran while they did (StampedLock#validate does the same).
          VarHandle.acquireFence();
          if (rolls == r) {
            totals.keepPass();
            return;
          }
        }
      }
      Thread.onSpinWait();
    }
    lock();
    try {
      readLocked(totals, oldest, newest);
    } finally {
      unlock();
    }
  }

  /** What {@link #readInto} does once it holds the lock; the caller holds it. */
  void readLocked(StripedBuckets.Totals totals, long oldest, long newest) {
    totals.startPass();
    addOlderBuckets(totals, oldest, newest);
    addFigures(totals, currentBucket, hotCount, hotSum, hotMin, hotMax, oldest, newest);
    totals.passBucket = currentBucket;
    totals.keepPass();
  }

  /** Adds the ring's slots but the newest bucket's (stale while it is the newest) to the pass. */
  private void addOlderBuckets(StripedBuckets.Totals totals, long oldest, long newest) {
    int cur = current;
    long[] s = slots;
    for (int i = 0; i < s.length; i += StripedBuckets.SLOT) {
      if (i != cur) {
        addFigures(
            totals,
            s[i],
            s[i + 1],
            Double.longBitsToDouble(s[i + 2]),
            Double.longBitsToDouble(s[i + 3]),
            Double.longBitsToDouble(s[i + 4]),
            oldest,
            newest);
      }
    }
  }

  /** Reads the newest bucket into the pass; false if adds kept changing it meanwhile. */
  private boolean readCurrent(StripedBuckets.Totals totals, long oldest, long newest) {
    for (int attempt = 0; attempt < StripedBuckets.OPTIMISTIC_READS; attempt++) {
      int v = seq;
      if ((v & 1) == 0) {
        long stamp = currentBucket;
        long n = hotCount;
        double sum = hotSum;
        double min = hotMin;
        double max = hotMax;
        VarHandle.acquireFence();
        if (seq == v) {
          addFigures(totals, stamp, n, sum, min, max, oldest, newest);
          totals.passBucket = stamp;
          return true;
        }
      }
      Thread.onSpinWait();
    }
    return false;
  }

  private static void addFigures(
      StripedBuckets.Totals totals,
      long stamp,
      long n,
      double sum,
      double min,
      double max,
      long oldest,
      long newest) {
    if (stamp >= oldest && stamp <= newest && n != 0) {
      totals.passCount += n;
      totals.passSum += sum;
      totals.passMin = Math.min(totals.passMin, min);
      totals.passMax = Math.max(totals.passMax, max);
    }
  }

  /**
   * Makes {@code bucket}, newer than the current one (or the first, from the constructor), this
   * stripe's newest: the figures of the bucket it leaves go to that bucket's slot of the ring, and
   * the newest bucket's figures start empty.
   */
  void roll(long bucket, int size, long intervalNanos) {
    int r = rolls;
    ROLLS.setOpaque(this, r + 1);
    // The odd word is visible before any write below (the seqlock writer's fence).
    VarHandle.storeStoreFence();
    long[] s = slots;
    int old = current;
    s[old] = currentBucket;
    s[old + 1] = hotCount;
    s[old + 2] = Double.doubleToRawLongBits(hotSum);
    s[old + 3] = Double.doubleToRawLongBits(hotMin);
    s[old + 4] = Double.doubleToRawLongBits(hotMax);
    hotCount = 0;
    hotSum = 0.0;
    hotMin = Double.POSITIVE_INFINITY;
    hotMax = Double.NEGATIVE_INFINITY;
    current = WindowMath.ringSlot(bucket, size) * StripedBuckets.SLOT;
    // Opaque, so that a reader without the lock sees a whole value, never a torn one.
    CURRENT_BUCKET.setOpaque(this, bucket);
    currentEnd = WindowMath.bucketEnd(bucket, intervalNanos);
    // Release: every write above is visible before the word turns even again.
    ROLLS.setRelease(this, r + 2);
  }
}
