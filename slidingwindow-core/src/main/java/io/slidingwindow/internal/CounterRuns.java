package io.slidingwindow.internal;

/**
 * One key's rolling sum and count: a ring of {@code (bucket, sum, count)} runs, oldest first.
 *
 * <p>Design. The window is {@code size} buckets of width {@code interval}; at time {@code t} it
 * counts buckets {@code b(t) - size + 1} through {@code b(t)} (see {@link
 * WindowMath#rollingOldestBucket}). Only non-empty buckets are stored, one run each, so a key that
 * saw one event costs one run, and a busy key at most {@code size}. The ring starts at two runs and
 * doubles up to {@code size}; it never shrinks, so its capacity is at most twice the most runs
 * stored at once, and at most {@code size}. As in {@link LimitRuns}, {@code trimAt} caches when the
 * oldest run leaves and {@code tailEnd} when the newest run's bucket ends, so a call that crosses
 * neither does no division; each run is pushed once and popped once, amortised O(1) per call.
 *
 * <p>Amounts are non-negative; a sum that would exceed {@link Long#MAX_VALUE} saturates there, and
 * is recomputed from the runs when runs leave.
 *
 * <p>Times are nanoseconds since the owner's origin; a time smaller than the latest one seen counts
 * as that latest one. Not thread-safe: the owner holds a lock around every call.
 */
public final class CounterRuns extends KeyTable.State {

  private static final int INITIAL_RUNS = 2;

  /** Longs per run: bucket, sum, count. */
  private static final int RUN = 3;

  private final int size;
  private final long intervalNanos;

  private long[] runs;
  private int head;
  private int stored;
  private long sum;
  private long count;
  private long latest;

  /** The time at which the oldest run leaves the window; MAX_VALUE when empty. */
  private long trimAt = Long.MAX_VALUE;

  /** The first time past the newest run's bucket; MIN_VALUE when empty. */
  private long tailEnd = Long.MIN_VALUE;

  /** An empty window of {@code size} buckets whose clock starts at {@code start}. */
  public CounterRuns(int size, long intervalNanos, long start) {
    this.size = size;
    this.intervalNanos = intervalNanos;
    this.latest = start;
    this.runs = new long[RUN * Math.min(INITIAL_RUNS, size)];
  }

  private long advance(long now) {
    if (now > latest) {
      latest = now;
    }
    if (latest >= trimAt) {
      trim(latest);
    }
    return latest;
  }

  private void trim(long now) {
    long oldest = WindowMath.rollingOldestBucket(WindowMath.bucket(now, intervalNanos), size);
    long[] r = runs;
    int capacity = r.length / RUN;
    boolean saturated = sum == Long.MAX_VALUE;
    while (stored > 0 && r[head * RUN] < oldest) {
      sum -= r[head * RUN + 1];
      count -= r[head * RUN + 2];
      head = head + 1 == capacity ? 0 : head + 1;
      stored--;
    }
    if (saturated) {
      sum = 0;
      for (int n = 0, i = head; n < stored; n++, i = i + 1 == capacity ? 0 : i + 1) {
        sum = saturatedAdd(sum, r[i * RUN + 1]);
      }
    }
    if (stored == 0) {
      head = 0;
      sum = 0;
      count = 0;
      trimAt = Long.MAX_VALUE;
      tailEnd = Long.MIN_VALUE;
    } else {
      trimAt = WindowMath.rollingLeavesAt(r[head * RUN], size, intervalNanos);
    }
  }

  /** Adds {@code amount} (non-negative) at time {@code now}; returns the sum after the add. */
  public long add(long now, long amount) {
    long t = advance(now);
    if (t < tailEnd) {
      int i = tailIndex() * RUN;
      runs[i + 1] = saturatedAdd(runs[i + 1], amount);
      runs[i + 2]++;
    } else {
      long bucket = WindowMath.bucket(t, intervalNanos);
      push(bucket, amount);
      tailEnd = WindowMath.bucketEnd(bucket, intervalNanos);
      if (stored == 1) {
        trimAt = WindowMath.rollingLeavesAt(bucket, size, intervalNanos);
      }
    }
    count++;
    sum = saturatedAdd(sum, amount);
    return sum;
  }

  /** The sum of the amounts the window counts at time {@code now}. */
  public long sum(long now) {
    advance(now);
    return sum;
  }

  /** How many adds the window counts at time {@code now}. */
  public long count(long now) {
    advance(now);
    return count;
  }

  /** Whether the window counts nothing at time {@code now}. */
  @Override
  public boolean isEmpty(long now) {
    advance(now);
    return stored == 0;
  }

  /** The latest time seen. */
  @Override
  public long latest() {
    return latest;
  }

  /** The runs stored now. */
  public int storedRuns() {
    return stored;
  }

  /** The runs the ring can hold without growing; it never shrinks. */
  public int capacity() {
    return runs.length / RUN;
  }

  private int tailIndex() {
    int i = head + stored - 1;
    int capacity = runs.length / RUN;
    return i >= capacity ? i - capacity : i;
  }

  private void push(long bucket, long amount) {
    int capacity = runs.length / RUN;
    if (stored == capacity) {
      grow();
      capacity = runs.length / RUN;
    }
    int i = head + stored;
    if (i >= capacity) {
      i -= capacity;
    }
    runs[i * RUN] = bucket;
    runs[i * RUN + 1] = amount;
    runs[i * RUN + 2] = 1;
    stored++;
  }

  private void grow() {
    int capacity = runs.length / RUN;
    if (capacity >= size) {
      // At most size buckets are counted at once and trim ran first: unreachable.
      throw new IllegalStateException("more than " + size + " runs in one rolling window");
    }
    int grown = (int) Math.min(size, 2L * capacity);
    long[] copy = new long[grown * RUN];
    for (int n = 0, i = head; n < stored; n++, i = i + 1 == capacity ? 0 : i + 1) {
      System.arraycopy(runs, i * RUN, copy, n * RUN, RUN);
    }
    runs = copy;
    head = 0;
  }

  private static long saturatedAdd(long a, long b) {
    long s = a + b;
    return s < 0 ? Long.MAX_VALUE : s; // both non-negative: overflow shows as a negative sum
  }
}
