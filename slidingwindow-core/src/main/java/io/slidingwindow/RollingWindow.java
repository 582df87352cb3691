package io.slidingwindow;

import io.slidingwindow.internal.Checks;
import io.slidingwindow.internal.WindowMath;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Arrays;

/**
 * Rolling-window statistics: the sum, count, minimum and maximum of the values added during the
 * last {@code size} buckets of width {@code interval}, as go-zero's {@code RollingWindow} and
 * Sentinel's {@code LeapArray} keep them.
 *
 * <p><b>Which values a snapshot covers.</b> Time {@code t} is nanoseconds since the window's origin
 * (the ticker's first read, when it is built); a reading smaller than the latest one the window has
 * seen, from any thread, counts as that latest one (a clock that goes backwards means no time
 * passed). A value is added to bucket {@code b(t) = floor(t / interval)}. A snapshot taken at time
 * {@code t} covers buckets {@code b(t) - size + 1} through {@code b(t)}: every value added in the
 * time span {@code [(b(t) - size + 1) * interval, t]}, whose length is between {@code (size - 1) *
 * interval} and {@code size * interval}. With {@link Builder#ignoreCurrent(boolean)} (go-zero's
 * {@code IgnoreCurrentBucket}), it covers buckets {@code b(t) - size + 1} through {@code b(t) - 1}
 * only: the span {@code [(b(t) - size + 1) * interval, b(t) * interval)}, {@code size - 1} whole
 * buckets, leaving out the bucket that is still filling. A snapshot's rates divide by the covered
 * buckets at or after the origin only (see {@link RollingSnapshot#length()}).
 *
 * <p><b>Values.</b> Any finite value; sums are {@code double} sums, not guarded against overflow:
 * values near {@link Double#MAX_VALUE} can make a snapshot's sum infinite or NaN (see {@link
 * RollingSnapshot}).
 *
 * <p><b>Thread-safety.</b> Every method may be called from any thread. {@link #add} allocates
 * nothing once the window has adapted to its callers: a thread's first add that finds a window
 * contended or striped creates the thread's stripe index (once per thread, for all windows), and an
 * add that collides may grow the stripes (at most six times over a window's life). {@link
 * #reduce()} includes every add that completed before it began, and an add that runs concurrently
 * with it is included or not, whole (as {@code LongAdder.sum()} treats concurrent updates); with a
 * single caller, or once adds stop, it is exact. Under concurrency an add is counted in the bucket
 * of a time between its own clock read and the latest read of the window.
 *
 * <p><b>Memory.</b> {@code 40 * size} bytes per stripe plus about 270 bytes of headers and padding;
 * one stripe to start with, and at most one per processor (rounded up to a power of two, at most
 * 64) when adds contend.
 *
 * <p><b>Design.</b> Each bucket lives in a slot of a ring of {@code size} slots, stamped with its
 * bucket number: a slot whose stamp is outside the covered range is stale and ignored, and is reset
 * when its turn as newest bucket comes. So an add never walks over expired buckets (go-zero resets
 * each bucket the clock has passed, up to {@code size} of them), and a stripe caches the end of its
 * newest bucket, so an add that stays inside it does no division: it compares, then adds.
 *
 * <p>As {@code java.util.concurrent.atomic.LongAdder} does, contention is met with more state
 * rather than waiting: the window starts with one ring (a stripe) under a one-word spin lock, and
 * when two adds collide it adds stripes, each thread keeping to the stripe that last served it.
 * The lock word of a stripe is also a sequence word (as in {@code StampedLock}), and a second
 * sequence word counts rolls (moves to a new bucket). Between two rolls, adds write the current
 * slot and no other, so a reduce reads the other slots as they are and the current one under the
 * lock word, and keeps the pass if no roll ran meanwhile: it neither writes to a stripe nor waits
 * for its adders, and takes the lock only after a few failed passes. It merges the covered slots of
 * every stripe, {@code O(stripes * size)}. One shared word holds the newest bucket any stripe has
 * rolled to or any reduce has reported (raised by CAS, about once per bucket): an add lands in that
 * bucket or a newer one, so a clock read that is behind counts at the window's latest time whatever
 * stripe takes it, and no add lands in a bucket a reduce has already seen leave.
 *
 * <p>Sentinel's {@code LeapArray} resets a bucket object in place, so an add that fetched the
 * bucket just before the reset can be wiped by it or land in the new period, and its per-bucket
 * adders are summed without a consistent view; go-zero takes one read-write lock for every call.
 * Here an add is never lost to a reset, and a reduce never sees a half-made add.
 */
public final class RollingWindow {

  /** The most buckets a window may have. */
  public static final int MAX_SIZE = 1 << 20;

  /** Longs per slot: bucket stamp, count, sum, min and max (the last three as double bits). */
  private static final int SLOT = 5;

  /** The processors rounded up to a power of two, at most 64. */
  static final int MAX_STRIPES =
      Math.min(
          64,
          Integer.highestOneBit(Math.max(1, Runtime.getRuntime().availableProcessors() * 2 - 1)));

  /** Failed lock attempts before a waiting thread yields its processor instead of spinning. */
  private static final int SPINS_BEFORE_YIELD = 64;

  /** The stripe each thread used last, as an index hash; rehashed when it collides. */
  private static final ThreadLocal<int[]> PROBE =
      ThreadLocal.withInitial(() -> new int[] {mix(Thread.currentThread().getId())});

  /** Optimistic reads of a stripe before a reduce takes its lock instead. */
  private static final int OPTIMISTIC_READS = 4;

  private static final VarHandle RESIZING;
  private static final VarHandle NEWEST_BUCKET;

  static {
    try {
      RESIZING = MethodHandles.lookup().findVarHandle(RollingWindow.class, "resizing", int.class);
      NEWEST_BUCKET =
          MethodHandles.lookup().findVarHandle(RollingWindow.class, "newestBucket", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final int size;
  private final long intervalNanos;
  private final boolean ignoreCurrent;
  private final Ticker ticker;
  private final long origin;

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

  private RollingWindow(Builder b) {
    this.size = b.size;
    this.intervalNanos = b.intervalNanos;
    this.ignoreCurrent = b.ignoreCurrent;
    this.ticker = b.ticker;
    Stripe[] initial = new Stripe[b.stripes];
    for (int i = 0; i < initial.length; i++) {
      initial[i] = new Stripe(size, intervalNanos);
    }
    this.stripes = initial;
    this.origin = ticker.read();
  }

  /** Returns a builder of rolling windows. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Adds {@code value} to the current bucket. Thread-safe; allocates nothing once the window has
   * adapted to its callers: only a thread's first add that finds a window contended or striped,
   * and an add that grows the stripes, allocate (see the class comment).
   *
   * @throws IllegalArgumentException if {@code value} is NaN or infinite
   */
  public void add(double value) {
    Checks.requireArgument(Double.isFinite(value), "value", "be finite", value);
    long now = ticker.read() - origin;
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

  /**
   * Adds {@code value}, converted to a {@code double}: exact for magnitudes up to 2<sup>53</sup>,
   * and so are sums that stay within that bound. Thread-safe; allocates as {@link #add(double)}.
   */
  public void add(long value) {
    add((double) value);
  }

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
   * Returns the statistics of the values the window covers now: the buckets {@code b(t) - size +
   * 1} through {@code b(t)}, or through {@code b(t) - 1} when the window ignores the current bucket
   * (see the class comment for the exact time span). Thread-safe: it includes every add that
   * completed before it began; an add that runs concurrently is included or not, whole.
   */
  public RollingSnapshot reduce() {
    long now = ticker.read() - origin;
    Stripe[] s = stripes;
    long seen = newestBucket;
    long bucket = Math.max(seen, now < 0 ? 0 : WindowMath.bucket(now, intervalNanos));
    for (Stripe stripe : s) {
      // A racy read is enough: every completed add has raised newestBucket to its bucket already;
      // this only keeps a reduce from reporting an older bucket than a running add has used.
      bucket = Math.max(bucket, stripe.currentBucketRacy());
    }
    raiseNewestBucket(seen, bucket);
    long oldest = WindowMath.rollingOldestBucket(bucket, size);
    long newest = ignoreCurrent ? bucket - 1 : bucket;
    Totals totals = new Totals();
    for (Stripe stripe : s) {
      stripe.readInto(totals, oldest, newest);
    }
    // Buckets before the origin's (bucket 0) held no time of this window: they are not counted in
    // the length that rates divide by.
    long first = Math.max(oldest, 0);
    long lengthNanos = newest < first ? 0 : (newest - first + 1) * intervalNanos;
    return new RollingSnapshot(totals.sum, totals.count, totals.min, totals.max, lengthNanos);
  }

  /**
   * What a reduce accumulates: the pass over the current stripe, which may be discarded, and the
   * totals of the stripes done. One object, so that a reduce allocates at most it and the snapshot.
   */
  private static final class Totals {
    long count;
    double sum;
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;

    long passCount;
    double passSum;
    double passMin;
    double passMax;

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
    }
  }

  /** The number of buckets. */
  public int size() {
    return size;
  }

  /** The width of one bucket. */
  public Duration interval() {
    return Duration.ofNanos(intervalNanos);
  }

  /** Whether snapshots leave out the bucket that is still filling. */
  public boolean ignoresCurrent() {
    return ignoreCurrent;
  }

  /** For example {@code "RollingWindow[10 x PT0.1S]"}. */
  @Override
  public String toString() {
    return "RollingWindow["
        + size
        + " x "
        + interval()
        + (ignoreCurrent ? ", ignoring the current bucket" : "")
        + "]";
  }

  /**
   * Makes the calling thread's adds go to stripe {@code index} (modulo the number of stripes) until
   * a collision moves it elsewhere; for tests that need adds on known stripes.
   */
  static void useStripe(int index) {
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

  /** Checks a bucket count: between 1 and {@link #MAX_SIZE}. */
  static int checkSize(int size) {
    return (int) Checks.requireBetween(size, 1, MAX_SIZE, "size");
  }

  /** Checks that {@code size} buckets of {@code intervalNanos} (positive) fit in a long. */
  static void checkSpan(int size, long intervalNanos) {
    Checks.requireArgument(
        Math.multiplyHigh(size, intervalNanos) == 0 && size * intervalNanos >= 0,
        "interval",
        "fit " + size + " times in " + Long.MAX_VALUE + " nanoseconds",
        Duration.ofNanos(intervalNanos));
  }

  /**
   * Padding before a stripe's fields, so that they never share a cache line with another stripe or
   * the shared stripe array. The int fills the gap after the object header, where the field layout
   * would otherwise put a subclass's int.
   */
  @SuppressWarnings("unused")
  private abstract static class Pad {
    int p00;
    long p01, p02, p03, p04, p05, p06, p07, p08;
  }

  /** The lock word, alone on its cache line: every add writes it twice. */
  private abstract static class SeqField extends Pad {
    /**
     * The lock and a sequence lock in one word (as {@code StampedLock}): odd while a thread holds
     * the stripe, and moved on by two at each release, so that a reader without the lock can tell
     * whether a writer ran while it read.
     */
    volatile int seq;
  }

  /**
   * Padding between the lock word and the fields that change only when the stripe moves to a new
   * bucket, so that a reduce reading those does not pull the adder's hottest line away from it.
   */
  @SuppressWarnings("unused")
  private abstract static class SeqPad extends SeqField {
    int r00;
    long r01, r02, r03, r04, r05, r06, r07, r08;
  }

  /** The fields of a stripe, written only by the holder of its lock, {@code seq}. */
  private abstract static class StripeFields extends SeqPad {
    /**
     * A second sequence word for rolls only: odd while a roll moves {@code current} and resets a
     * slot. Between rolls, adds write the current slot and no other, so a reader can take the
     * other slots without caring how many adds run meanwhile.
     */
    volatile int rolls;

    /** The index in {@code slots} of {@code currentBucket}'s slot. */
    int current;

    /** The newest bucket this stripe has seen; its slot is {@code current}. */
    long currentBucket;

    /** The first time past {@code currentBucket}: earlier times fall in it. */
    long currentEnd;

    /** {@code size} slots of {@link #SLOT} longs each. */
    final long[] slots;

    StripeFields(int size) {
      this.slots = new long[size * SLOT];
    }
  }

  /** One ring of buckets under a spin lock. Not itself thread-safe: callers hold its lock. */
  @SuppressWarnings("unused")
  private static final class Stripe extends StripeFields {
    private static final VarHandle SEQ;
    private static final VarHandle ROLLS;
    private static final VarHandle CURRENT_BUCKET;

    static {
      try {
        SEQ = MethodHandles.lookup().findVarHandle(SeqField.class, "seq", int.class);
        ROLLS = MethodHandles.lookup().findVarHandle(StripeFields.class, "rolls", int.class);
        CURRENT_BUCKET =
            MethodHandles.lookup().findVarHandle(StripeFields.class, "currentBucket", long.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    long q01, q02, q03, q04, q05, q06, q07, q08;

    Stripe(int size, long intervalNanos) {
      super(size);
      for (int i = 0; i < slots.length; i += SLOT) {
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

    void lock() {
      for (int attempt = 0; !tryLock(); attempt++) {
        if (attempt < SPINS_BEFORE_YIELD) {
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
     * blocking adders in the common case. Between two rolls only the current slot changes, so a
     * pass reads the other slots as they are and the current slot under {@code seq} (a pass over
     * one slot, retried if an add ran meanwhile), and is kept only if no roll ran meanwhile; every
     * slot is thus read whole, and the pass equals the stripe at one instant. After a few failed
     * passes it takes the lock instead.
     */
    void readInto(Totals totals, long oldest, long newest) {
      for (int attempt = 0; attempt < OPTIMISTIC_READS; attempt++) {
        int r = rolls; // volatile read: the reads below cannot move above it
        if ((r & 1) == 0) {
          int cur = current;
          totals.startPass();
          long[] s = slots;
          for (int i = 0; i < s.length; i += SLOT) {
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
        for (int i = 0; i < s.length; i += SLOT) {
          addSlot(totals, s, i, oldest, newest);
        }
        totals.keepPass();
      } finally {
        unlock();
      }
    }

    /** Reads the slot at {@code cur} into the pass; false if adds kept changing it meanwhile. */
    private boolean readCurrent(Totals totals, int cur, long oldest, long newest) {
      long[] s = slots;
      for (int attempt = 0; attempt < OPTIMISTIC_READS; attempt++) {
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

    private static void addSlot(Totals totals, long[] s, int i, long oldest, long newest) {
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
      int base = WindowMath.ringSlot(bucket, size) * SLOT;
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

  /** Builds {@link RollingWindow}s. Not thread-safe. */
  public static final class Builder {

    /** go-zero's default bucket count. */
    public static final int DEFAULT_SIZE = 10;

    /** go-zero's default bucket width. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofMillis(100);

    private int size = DEFAULT_SIZE;
    private long intervalNanos = DEFAULT_INTERVAL.toNanos();
    private boolean ignoreCurrent;
    private Ticker ticker = Ticker.coarse();
    private int stripes = 1;

    Builder() {}

    /**
     * Sets the number of buckets, {@value #DEFAULT_SIZE} by default.
     *
     * @throws IllegalArgumentException if {@code size} is not positive or exceeds {@link
     *     RollingWindow#MAX_SIZE}
     */
    public Builder size(int size) {
      this.size = checkSize(size);
      return this;
    }

    /**
     * Sets the width of one bucket, 100 ms by default.
     *
     * @throws IllegalArgumentException if {@code interval} is null, not positive, or longer than
     *     {@link Long#MAX_VALUE} nanoseconds
     */
    public Builder interval(Duration interval) {
      this.intervalNanos = Checks.requirePositiveNanos(interval, "interval");
      return this;
    }

    /**
     * Sets whether snapshots leave out the bucket that is still filling (go-zero's {@code
     * IgnoreCurrentBucket}), off by default. Requires at least two buckets.
     */
    public Builder ignoreCurrent(boolean ignoreCurrent) {
      this.ignoreCurrent = ignoreCurrent;
      return this;
    }

    /**
     * Sets the clock, {@link Ticker#coarse()} by default: a read is one volatile load instead of a
     * {@code System.nanoTime()} call (about 25 ns), and the reading lags true time by about a
     * millisecond, which moves a value into the previous bucket only when it is added within that
     * lag of a bucket's start. Pass {@link Ticker#system()} for exact bucket edges. The clock is
     * read once when the window is built (its origin) and once per operation.
     *
     * @throws IllegalArgumentException if {@code ticker} is null
     */
    public Builder ticker(Ticker ticker) {
      this.ticker = Checks.requireNonNull(ticker, "ticker");
      return this;
    }

    /**
     * Starts the window with {@code stripes} stripes instead of one, as if adds had already
     * collided; for tests that need several stripes whatever the machine.
     *
     * @throws IllegalArgumentException if {@code stripes} is not a power of two between 1 and 64
     */
    Builder stripes(int stripes) {
      Checks.requireArgument(
          stripes >= 1 && stripes <= 64 && Integer.bitCount(stripes) == 1,
          "stripes",
          "be a power of two between 1 and 64",
          stripes);
      this.stripes = stripes;
      return this;
    }

    /**
     * Builds the window and reads its clock once, as the origin of its buckets.
     *
     * @throws IllegalArgumentException if {@code size * interval} exceeds {@link Long#MAX_VALUE}
     *     nanoseconds, or the window ignores the current bucket and has fewer than two
     */
    public RollingWindow build() {
      checkSpan(size, intervalNanos);
      Checks.requireArgument(
          !ignoreCurrent || size >= 2, "size", "be at least 2 to ignore the current bucket", size);
      return new RollingWindow(this);
    }
  }
}
