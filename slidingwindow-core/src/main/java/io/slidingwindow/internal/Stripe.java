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
    long[] s = slots;
    int i = current;
    s[i + 1]++;
    s[i + 2] = Double.doubleToRawLongBits(Double.longBitsToDouble(s[i + 2]) + value);
    // Math.min and Math.max, as a reduce merges slots with: -0.0 is below 0.0.
    s[i + 3] = Double.doubleToRawLongBits(Math.min(Double.longBitsToDouble(s[i + 3]), value));
    s[i + 4] = Double.doubleToRawLongBits(Math.max(Double.longBitsToDouble(s[i + 4]), value));
    return currentBucket;
  }

  /**
   * Adds the slots stamped {@code oldest} through {@code newest} to {@code totals}, without
   * blocking adders in the common case. Between two rolls only the current slot changes, so a pass
   * reads the other slots as they are and the current slot under {@code seq} (a pass over one slot,
   * retried if an add ran meanwhile), and is kept only if no roll ran meanwhile; every slot is thus
   * read whole, and the pass equals the stripe at one instant. After a few failed passes it takes
   * the lock instead.
   */
  void readInto(StripedBuckets.Totals totals, long oldest, long newest) {
    for (int attempt = 0; attempt < StripedBuckets.OPTIMISTIC_READS; attempt++) {
      int r = rolls; // volatile read: the reads below cannot move above it
      if ((r & 1) == 0) {
        int cur = current;
        totals.startPass();
        long[] s = slots;
        for (int i = 0; i < s.length; i += StripedBuckets.SLOT) {
          if (i != cur) {
            addSlot(totals, s, i, oldest, newest);
          }
        }
        if (readCurrent(totals, cur, oldest, newest)) {
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
      totals.startPass();
      long[] s = slots;
      for (int i = 0; i < s.length; i += StripedBuckets.SLOT) {
        addSlot(totals, s, i, oldest, newest);
      }
      totals.keepPass();
    } finally {
      unlock();
    }
  }

  /** Reads the slot at {@code cur} into the pass; false if adds kept changing it meanwhile. */
  private boolean readCurrent(StripedBuckets.Totals totals, int cur, long oldest, long newest) {
    long[] s = slots;
    for (int attempt = 0; attempt < StripedBuckets.OPTIMISTIC_READS; attempt++) {
      int v = seq;
      if ((v & 1) == 0) {
        long stamp = s[cur];
        long n = s[cur + 1];
        long sum = s[cur + 2];
        long min = s[cur + 3];
        long max = s[cur + 4];
        VarHandle.acquireFence();
        if (seq == v) {
          if (stamp >= oldest && stamp <= newest && n != 0) {
            totals.passCount += n;
            totals.passSum += Double.longBitsToDouble(sum);
            totals.passMin = Math.min(totals.passMin, Double.longBitsToDouble(min));
            totals.passMax = Math.max(totals.passMax, Double.longBitsToDouble(max));
          }
          return true;
        }
      }
      Thread.onSpinWait();
    }
    return false;
  }

  private static void addSlot(
      StripedBuckets.Totals totals, long[] s, int i, long oldest, long newest) {
    long stamp = s[i];
    long n = s[i + 1];
    if (stamp >= oldest && stamp <= newest && n != 0) {
      totals.passCount += n;
      totals.passSum += Double.longBitsToDouble(s[i + 2]);
      totals.passMin = Math.min(totals.passMin, Double.longBitsToDouble(s[i + 3]));
      totals.passMax = Math.max(totals.passMax, Double.longBitsToDouble(s[i + 4]));
    }
  }

  /** Makes {@code bucket}, not older than the current one, this stripe's newest. */
  void roll(long bucket, int size, long intervalNanos) {
    int r = rolls;
    ROLLS.setOpaque(this, r + 1);
    // The odd word is visible before any write below (the seqlock writer's fence).
    VarHandle.storeStoreFence();
    int base = WindowMath.ringSlot(bucket, size) * StripedBuckets.SLOT;
    if (slots[base] != bucket) {
      reset(base, bucket);
    }
    current = base;
    // Opaque, so that a reader without the lock sees a whole value, never a torn one.
    CURRENT_BUCKET.setOpaque(this, bucket);
    currentEnd = WindowMath.bucketEnd(bucket, intervalNanos);
    // Release: every write above is visible before the word turns even again.
    ROLLS.setRelease(this, r + 2);
  }

  private void reset(int base, long bucket) {
    slots[base] = bucket;
    slots[base + 1] = 0;
    slots[base + 2] = Double.doubleToRawLongBits(0.0);
    slots[base + 3] = Double.doubleToRawLongBits(Double.POSITIVE_INFINITY);
    slots[base + 4] = Double.doubleToRawLongBits(Double.NEGATIVE_INFINITY);
  }
}
