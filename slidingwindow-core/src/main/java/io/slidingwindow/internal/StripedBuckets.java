package io.slidingwindow.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * The engine of {@code RollingWindow}: the count, sum, minimum and maximum of the values added in
 * each of the last {@code size} buckets of width {@code interval}, kept in striped rings that adds
 * update without blocking each other and a reduce reads without blocking adds. Times are
 * nanoseconds since the owner's origin; the owner reads the clock and checks the values.
 *
 * <p><b>Design.</b> Each bucket lives in a slot of a ring of {@code size} slots, stamped with its
 * bucket number: a slot whose stamp is outside the covered range is stale and ignored, and is
 * overwritten when its turn as newest bucket comes. So an add never walks over expired buckets
 * (go-zero resets each bucket the clock has passed, up to {@code size} of them), and a stripe
 * caches the end of its newest bucket, so an add that stays inside it does no division: it
 * compares, then adds. The newest bucket's figures are not in the ring but in fields beside the
 * stripe's lock word, and move to its slot when the stripe rolls on: an add writes one cache line,
 * and a reduce on another processor takes that one line from it, not two.
 *
 * <p>As {@code java.util.concurrent.atomic.LongAdder} does, contention is met with more state
 * rather than waiting: the window starts with one ring (a stripe) under a one-word spin lock, and
 * when two adds collide it adds stripes, each thread keeping to the stripe that last served it. The
 * lock word of a stripe is also a sequence word (as in {@code StampedLock}), and a second sequence
 * word counts rolls (moves to a new bucket). Between two rolls, adds write the newest bucket's
 * figures and no slot, so a reduce reads the slots as they are and the figures under the lock word,
 * and keeps the pass if no roll ran meanwhile: it neither writes to a stripe nor waits for its
 * adders, and takes the lock only after a few failed passes. It merges the covered slots of every
 * stripe, {@code O(stripes * size)}. One shared word holds the newest bucket any stripe has rolled
 * to or any reduce has reported (raised by CAS, about once per bucket): an add lands in that bucket
 * or a newer one, so a clock read that is behind counts at the window's latest time whatever stripe
 * takes it, and no add lands in a bucket a reduce has already seen leave.
 *
 * <p>Sentinel's {@code LeapArray} resets a bucket object in place, so an add that fetched the
 * bucket just before the reset can be wiped by it or land in the new period, and its per-bucket
 * adders are summed without a consistent view; go-zero takes one read-write lock for every call.
 * Here an add is never lost to a reset, and a reduce never sees a half-made add.
 */
public final class StripedBuckets {

  /** Longs per slot: bucket stamp, count, sum, min and max (the last three as double bits). */
  static final int SLOT = 5;

  /** The processors rounded up to a power of two, at most 64. */
  public static final int MAX_STRIPES =
      Math.min(
          64,
          Integer.highestOneBit(Math.max(1, Runtime.getRuntime().availableProcessors() * 2 - 1)));

  /** Failed lock attempts before a waiting thread yields its processor instead of spinning. */
  static final int SPINS_BEFORE_YIELD = 64;

  /** The stripe each thread used last, as an index hash; rehashed when it collides. */
  private static final ThreadLocal<int[]> PROBE =
      ThreadLocal.withInitial(() -> new int[] {mix(Thread.currentThread().getId())});

  /** Optimistic reads of a stripe before a reduce takes its lock instead. */
  static final int OPTIMISTIC_READS = 4;

  private static final VarHandle RESIZING;
  private static final VarHandle NEWEST_BUCKET;

  static {
    try {
      RESIZING = MethodHandles.lookup().findVarHandle(StripedBuckets.class, "resizing", int.class);
      NEWEST_BUCKET =
          MethodHandles.lookup().findVarHandle(StripedBuckets.class, "newestBucket", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final int size;
  private final long intervalNanos;

  /** Never shrinks; replaced (grown) under {@code resizing}. */
  private volatile Stripe[] stripes;

  /**
   * The newest bucket any stripe has rolled to or any reduce has reported: later adds land in it or
   * a newer one, whatever their clock read and whichever stripe they use, so that a clock read
   * behind the window's latest counts as that latest time, and no add lands in a bucket a reduce
   * has already seen leave. Only grows, by CAS; it changes about once per bucket, so adds read it
   * from a cache line that rarely moves.
   */
  private volatile long newestBucket;

  /** 1 while a thread grows {@code stripes}. */
  @SuppressWarnings("unused")
  private volatile int resizing;

  /**
   * Empty rings of {@code size} buckets of width {@code intervalNanos}, starting with {@code
   * stripes} stripes (a power of two, at most 64).
   */
  public StripedBuckets(int size, long intervalNanos, int stripes) {
    this.size = size;
    this.intervalNanos = intervalNanos;
    Stripe[] initial = new Stripe[stripes];
    for (int i = 0; i < initial.length; i++) {
      initial[i] = new Stripe(size, intervalNanos);
    }
    this.stripes = initial;
  }

  /**
   * Adds {@code value} (finite) at time {@code now}. Allocates nothing once the stripes have
   * adapted to their callers (see {@code RollingWindow}).
   */
  public void add(long now, double value) {
    Stripe[] s = stripes;
    if (s.length == 1) {
      Stripe stripe = s[0];
      if (stripe.tryLock()) {
        try {
          addLocked(stripe, now, value);
        } finally {
          stripe.unlock();
        }
        return;
      }
    }
    addContended(now, value);
  }

  @SuppressWarnings("ThreadPriorityCheck") // yields only after spinning, as Stripe.lock does
  private void addContended(long now, double value) {
    int[] probe = PROBE.get();
    int h = probe[0];
    for (int attempt = 0; ; attempt++) {
      Stripe[] s = stripes;
      Stripe stripe = s[h & (s.length - 1)];
      if (stripe.tryLock()) {
        try {
          addLocked(stripe, now, value);
        } finally {
          stripe.unlock();
        }
        if (h != probe[0]) {
          // Written only when it moved: the array may share a cache line with hot shared data.
          probe[0] = h;
        }
        return;
      }
      if (s.length < MAX_STRIPES) {
        grow(s);
      } else if (attempt < SPINS_BEFORE_YIELD) {
        Thread.onSpinWait();
      } else {
        Thread.yield();
      }
      h = rehash(h);
    }
  }

  /**
   * Adds to a stripe its caller holds, and raises {@code newestBucket} if the stripe rolled past
   * it. The raise happens before the add completes, so an add on another stripe that begins after
   * this one completed lands in this bucket or a newer one even if its clock reads earlier.
   */
  private void addLocked(Stripe stripe, long now, double value) {
    long newest = newestBucket;
    long bucket = stripe.add(now, value, newest, size, intervalNanos);
    if (bucket > newest) {
      raiseNewestBucket(newest, bucket);
    }
  }

  /** Raises {@code newestBucket} from {@code seen} to {@code bucket} unless it is already newer. */
  private void raiseNewestBucket(long seen, long bucket) {
    long current = seen;
    while (bucket > current && !NEWEST_BUCKET.compareAndSet(this, current, bucket)) {
      current = newestBucket;
    }
  }

  private void grow(Stripe[] seen) {
    if (!RESIZING.compareAndSet(this, 0, 1)) {
      return;
    }
    try {
      if (stripes == seen) {
        Stripe[] grown = Arrays.copyOf(seen, seen.length * 2);
        for (int i = seen.length; i < grown.length; i++) {
          grown[i] = new Stripe(size, intervalNanos);
        }
        // A new stripe is published empty; an add locks it only after reading this array.
        stripes = grown;
      }
    } finally {
      RESIZING.setRelease(this, 0);
    }
  }

  /**
   * The totals of the buckets a window covers at time {@code now}: the buckets {@code b(now) - size
   * + 1} through {@code b(now)}, or through {@code b(now) - 1} if {@code ignoreCurrent}. It
   * includes every add that completed before it began; an add that runs concurrently is included or
   * not, whole. Allocates the one object it returns.
   */
  public Totals reduce(long now, boolean ignoreCurrent) {
    Stripe[] s = stripes;
    long seen = newestBucket;
    long bucket = Math.max(seen, now < 0 ? 0 : WindowMath.bucket(now, intervalNanos));
    for (Stripe stripe : s) {
      // A racy read is enough: every completed add has raised newestBucket to its bucket already;
      // this only keeps a reduce from reporting an older bucket than a running add has used.
      bucket = Math.max(bucket, stripe.currentBucketRacy());
    }
    Totals totals = new Totals();
    for (; ; ) {
      raiseNewestBucket(seen, bucket);
      long oldest = WindowMath.rollingOldestBucket(bucket, size);
      long newest = ignoreCurrent ? bucket - 1 : bucket;
      for (Stripe stripe : s) {
        stripe.readInto(totals, oldest, newest);
      }
      if (totals.newestRead <= bucket) {
        // Buckets before the origin's (bucket 0) held no time of this window: they are not
        // counted in the length that rates divide by.
        long first = Math.max(oldest, 0);
        totals.lengthNanos = newest < first ? 0 : (newest - first + 1) * intervalNanos;
        return totals;
      }
      // A stripe rolled past this window's newest bucket while the reduce ran, and its ring gave
      // that bucket the slot of one this window covers: the stripe as read has lost that bucket,
      // and an add that completed before the reduce began may be in it. Read again as of the
      // newer bucket, which the stripe has reached anyway (about once per bucket at most).
      seen = newestBucket;
      bucket = Math.max(seen, totals.newestRead);
      totals.clear();
    }
  }

  /**
   * What a reduce accumulates: the pass over the current stripe, which may be discarded, and the
   * totals of the stripes done. One object, so that a reduce allocates at most it and the snapshot
   * its owner makes of it.
   */
  public static final class Totals {
    long count;
    double sum;
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;

    /** The covered buckets at or after bucket 0, times the interval: what rates divide by. */
    long lengthNanos;

    long passCount;
    double passSum;
    double passMin;
    double passMax;

    /** The newest bucket of the stripe the current pass reads, as of that pass. */
    long passBucket;

    /** The newest bucket of any stripe read, as of the passes kept. */
    long newestRead = Long.MIN_VALUE;

    void clear() {
      count = 0;
      sum = 0;
      min = Double.POSITIVE_INFINITY;
      max = Double.NEGATIVE_INFINITY;
      newestRead = Long.MIN_VALUE;
    }

    void startPass() {
      passCount = 0;
      passSum = 0;
      passMin = Double.POSITIVE_INFINITY;
      passMax = Double.NEGATIVE_INFINITY;
    }

    void keepPass() {
      count += passCount;
      sum += passSum;
      min = Math.min(min, passMin);
      max = Math.max(max, passMax);
      newestRead = Math.max(newestRead, passBucket);
    }

    /** How many values were added in the covered buckets. */
    public long count() {
      return count;
    }

    /** Their sum; 0 when none. */
    public double sum() {
      return sum;
    }

    /** The smallest; positive infinity when none. */
    public double min() {
      return min;
    }

    /** The largest; negative infinity when none. */
    public double max() {
      return max;
    }

    /**
     * The number of covered buckets at or after the origin's (bucket 0), times the interval, in
     * nanoseconds.
     */
    public long lengthNanos() {
      return lengthNanos;
    }
  }

  /**
   * Makes the calling thread's adds go to stripe {@code index} (modulo the number of stripes) until
   * a collision moves it elsewhere; for tests that need adds on known stripes.
   */
  public static void useStripe(int index) {
    // Bit 8 keeps the probe non-zero (xorshift maps zero to zero) without changing the
    // stripe it selects, as there are at most 64 stripes.
    PROBE.get()[0] = (1 << 8) | (index & 63);
  }

  private static int mix(long x) {
    long z = (x + 0x9E3779B97F4A7C15L) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    int h = (int) (z ^ (z >>> 31));
    return h == 0 ? 1 : h;
  }

  /** Marsaglia's xorshift, as LongAdder moves a colliding thread to another cell. */
  private static int rehash(int h) {
    h ^= h << 13;
    h ^= h >>> 17;
    h ^= h << 5;
    return h;
  }
}
