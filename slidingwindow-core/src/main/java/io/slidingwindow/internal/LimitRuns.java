package io.slidingwindow.internal;

/**
 * The state of one limit: a ring of {@code (bucket, count)} runs, oldest first, with their sum.
 *
 * <p>Design. Only non-empty buckets are stored, each as one run, so memory follows the number of
 * distinct buckets that hold permits, not the request rate: at most {@code ceil(W / p) + 1} runs
 * can be counted at once (see {@link WindowMath}), and when only granted permits are recorded each
 * run holds at least one of at most {@code N} permits, so at most {@code min(N, ceil(W / p) + 1)}
 * runs are stored. The ring starts small and doubles up to that bound.
 *
 * <p>The fast path does no division: {@code trimAt} caches the time at which the oldest run leaves
 * the window and {@code tailEnd} the time at which the newest run's bucket ends, so a call that
 * crosses neither only compares and adds. Every run is pushed once and popped once, so the work
 * per call is amortised O(1).
 *
 * <p>When refused attempts are recorded too, two compressions keep the same bound and change no
 * decision. A bucket's count saturates at {@code N}: while such a bucket is counted, any request is
 * refused anyway, and it leaves the window whole. And the oldest run is dropped while the runs after
 * it already hold {@code N} permits: as long as that run would still be counted, all newer runs are
 * counted too and the window is full whether or not it is there; once it has left, it no longer
 * counts either way. The figures a decision reports (remaining, retry-after, reset) are the same
 * with and without the dropped run. So every run but the oldest holds less than {@code N} permits
 * in all, and again at most {@code min(N, ceil(W / p) + 1)} runs are stored.
 *
 * <p>Not thread-safe: callers hold a lock. Times passed in never decrease (see {@link
 * KeyLimits}).
 */
public final class LimitRuns {

  private static final int INITIAL_RUNS = 2;

  final long limit;
  final long windowNanos;
  final long precisionNanos;
  private final boolean saturate;
  private final int maxRuns;

  /** Interleaved runs: {@code runs[2i]} is a bucket, {@code runs[2i + 1]} its count. */
  private long[] runs;

  private int head;
  private int size;

  /** The permits in the stored runs; after {@link #expire} these are exactly the counted ones. */
  private long sum;

  /** The time at which the oldest run leaves the window; MAX_VALUE when empty. */
  private long trimAt = Long.MAX_VALUE;

  /** The first time past the newest run's bucket; MIN_VALUE when empty. */
  private long tailEnd = Long.MIN_VALUE;

  /**
   * Creates an empty window.
   *
   * @param countRefused whether refused attempts are recorded too (see the class comment)
   * @throws IllegalArgumentException if the runs this window may store do not fit in memory, or
   *     refused attempts are counted with a limit above {@code Long.MAX_VALUE / 3}, which could
   *     overflow the sum
   */
  public LimitRuns(long limit, long windowNanos, long precisionNanos, boolean countRefused) {
    long bound = WindowMath.maxRuns(limit, windowNanos, precisionNanos);
    if (bound > WindowMath.MAX_RUNS) {
      throw new IllegalArgumentException(
          "precision: "
              + limit
              + " permits per "
              + windowNanos
              + " ns at a precision of "
              + precisionNanos
              + " ns may need "
              + bound
              + " stored runs, more than the "
              + WindowMath.MAX_RUNS
              + " supported; choose a coarser precision");
    }
    if (countRefused && limit > Long.MAX_VALUE / 3) {
      throw new IllegalArgumentException(
          "permits must be at most " + Long.MAX_VALUE / 3 + " to count refused attempts, was " + limit);
    }
    this.limit = limit;
    this.windowNanos = windowNanos;
    this.precisionNanos = precisionNanos;
    this.saturate = countRefused;
    this.maxRuns = (int) bound;
    this.runs = new long[2 * Math.min(INITIAL_RUNS, maxRuns)];
  }

  /** Drops the runs that have left the window at time {@code now}. */
  public void expire(long now) {
    if (now >= trimAt) {
      trim(now);
    }
  }

  private void trim(long now) {
    long oldest = WindowMath.oldestBucket(now, windowNanos, precisionNanos);
    while (size > 0 && runs[head << 1] < oldest) {
      popHead();
    }
    headChanged();
  }

  /** Removes the oldest run. */
  private void popHead() {
    sum -= runs[(head << 1) + 1];
    head = head + 1 == runs.length >> 1 ? 0 : head + 1;
    size--;
  }

  /** Recomputes what depends on the oldest run after runs were removed. */
  private void headChanged() {
    if (size == 0) {
      head = 0;
      trimAt = Long.MAX_VALUE;
      tailEnd = Long.MIN_VALUE;
    } else {
      trimAt = WindowMath.leavesAt(runs[head << 1], windowNanos, precisionNanos);
    }
  }

  /** Whether {@code permits} more fit now; call {@link #expire} first. */
  public boolean allows(long permits) {
    return permits <= limit - sum;
  }

  /** The permits counted now; call {@link #expire} first. */
  public long count() {
    return sum;
  }

  /** The permits still available now, never negative; call {@link #expire} first. */
  public long remaining() {
    return Math.max(0, limit - sum);
  }

  /** The time at which the oldest stored run leaves the window; MAX_VALUE when none is stored. */
  public long nextExpiry() {
    return trimAt;
  }

  /** Adds {@code permits} at time {@code now}; call {@link #expire} first. */
  public void record(long now, long permits) {
    if (now < tailEnd) {
      int countIndex = (tailIndex() << 1) + 1;
      long count = runs[countIndex];
      long updated = saturate ? Math.min(limit, count + permits) : count + permits;
      runs[countIndex] = updated;
      sum += updated - count;
      if (saturate) {
        dropCovered(0);
      }
    } else {
      long bucket = WindowMath.bucket(now, precisionNanos);
      long count = saturate ? Math.min(limit, permits) : permits;
      if (saturate) {
        dropCovered(count);
      }
      push(bucket, count);
      sum += count;
      tailEnd = WindowMath.bucketEnd(bucket, precisionNanos);
      if (size == 1) {
        trimAt = WindowMath.leavesAt(bucket, windowNanos, precisionNanos);
      }
    }
  }

  /**
   * Drops the oldest runs while the newer ones, with {@code pending} permits about to be pushed as
   * the newest run, alone fill the window (see the class comment). Keeps at least one run.
   */
  private void dropCovered(long pending) {
    int keep = pending > 0 ? 0 : 1;
    boolean dropped = false;
    while (size > keep && sum + pending - runs[(head << 1) + 1] >= limit) {
      popHead();
      dropped = true;
    }
    if (dropped) {
      headChanged();
    }
  }

  private int tailIndex() {
    int i = head + size - 1;
    int capacity = runs.length >> 1;
    return i >= capacity ? i - capacity : i;
  }

  private void push(long bucket, long count) {
    int capacity = runs.length >> 1;
    if (size == capacity) {
      grow();
      capacity = runs.length >> 1;
    }
    int i = head + size;
    if (i >= capacity) {
      i -= capacity;
    }
    runs[i << 1] = bucket;
    runs[(i << 1) + 1] = count;
    size++;
  }

  private void grow() {
    int capacity = runs.length >> 1;
    if (capacity >= maxRuns) {
      // The bound in the class comment makes this unreachable; failing loudly beats corrupting.
      throw new IllegalStateException("more than " + maxRuns + " runs in one window");
    }
    int grown = (int) Math.min(maxRuns, 2L * capacity);
    long[] copy = new long[grown << 1];
    for (int n = 0, i = head; n < size; n++, i = i + 1 == capacity ? 0 : i + 1) {
      copy[n << 1] = runs[i << 1];
      copy[(n << 1) + 1] = runs[(i << 1) + 1];
    }
    runs = copy;
    head = 0;
  }

  /**
   * How long from {@code now} until {@code permits} more would fit if nothing else were recorded;
   * zero if they fit now. Call {@link #expire} first. Walks the runs, oldest first, until enough
   * have left.
   */
  public long retryAfterNanos(long now, long permits) {
    long excess = sum - (limit - permits);
    if (excess <= 0) {
      return 0;
    }
    int capacity = runs.length >> 1;
    long freed = 0;
    long bucket;
    int i = head;
    do {
      bucket = runs[i << 1];
      freed += runs[(i << 1) + 1];
      i = i + 1 == capacity ? 0 : i + 1;
    } while (freed < excess);
    return WindowMath.leavesAt(bucket, windowNanos, precisionNanos) - now;
  }

  /**
   * How long from {@code now} until every counted permit has left the window; zero if none is
   * counted. Call {@link #expire} first.
   */
  public long resetAfterNanos(long now) {
    if (size == 0) {
      return 0;
    }
    long newest = runs[tailIndex() << 1];
    return WindowMath.leavesAt(newest, windowNanos, precisionNanos) - now;
  }

  /** The runs stored now. */
  public int storedRuns() {
    return size;
  }

  /** The most runs this window may ever store. */
  public int maxRuns() {
    return maxRuns;
  }

  /** Whether no run is stored; call {@link #expire} first to learn whether the window is empty. */
  public boolean isEmpty() {
    return size == 0;
  }
}
