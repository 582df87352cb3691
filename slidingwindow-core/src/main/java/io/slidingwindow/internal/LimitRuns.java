package io.slidingwindow.internal;

import io.slidingwindow.Limit;

/**
 * The state of one limit: a ring of {@code (bucket, count)} runs, oldest first, with their sum. It
 * is also the whole state of a key with one limit (see {@link KeyLimits}).
 *
 * <p>Design. Only non-empty buckets are stored, each as one run, so memory follows the number of
 * distinct buckets that hold permits, not the request rate: at most {@code ceil(W / p) + 1} runs
 * can be counted at once (see {@link WindowMath}), and when only granted permits are recorded each
 * run holds at least one of at most {@code N} permits, so at most {@code min(N, ceil(W / p) + 1)}
 * runs are stored. The ring is allocated with the first run, at two runs, and doubles up to that
 * bound; it never shrinks, so its capacity is at most twice the most runs stored at once.
 *
 * <p>Memory layout. The limit's figures live in one {@link Config} that every key shares. A run's
 * count never exceeds {@code N} and its bucket never exceeds {@code Long.MAX_VALUE / p} (times are
 * non-negative), so when the bits of both fit in 64 the run is packed in one long, {@code bucket <<
 * countBits | count}; otherwise it takes two longs, bucket then count. With compressed references
 * the object is 48 bytes (12 header, 2 entry flags, 8 latest time, 4 config, 4 ring, 4 head, 4
 * size, 8 sum, padding) and the ring {@code 16 + 8 * capacity} bytes when packed: a key of 1000 per
 * minute at 60 ms holding 3 runs costs 48 + 48 bytes here.
 *
 * <p>The fast path does no division: whether the oldest run has left and whether a time falls in
 * the newest run's bucket are each one multiplication away from the stored buckets. Every run is
 * pushed once and popped once, so the work per call is amortised O(1).
 *
 * <p>When refused attempts are recorded too, two compressions keep the same bound and change no
 * decision. A bucket's count saturates at {@code N}: while such a bucket is counted, any request is
 * refused anyway, and it leaves the window whole. And the oldest run is dropped while the runs
 * after it already hold {@code N} permits: as long as that run would still be counted, all newer
 * runs are counted too and the window is full whether or not it is there; once it has left, it no
 * longer counts either way. The figures a decision reports (remaining, retry-after, reset) are the
 * same with and without the dropped run. So every run but the oldest holds less than {@code N}
 * permits in all, and again at most {@code min(N, ceil(W / p) + 1)} runs are stored.
 *
 * <p>Not thread-safe: callers hold a lock. Times passed in are non-negative and never decrease (see
 * {@link KeyLimits}).
 */
public final class LimitRuns extends OneWindow {

  private static final int INITIAL_RUNS = 2;

  /** One limit's figures and run layout, shared by the windows of every key. Immutable. */
  public static final class Config implements Window.Config {
    final Limit limit;
    final long permits;
    final long windowNanos;
    final long precisionNanos;
    final boolean saturate;
    final boolean compress; // refused attempts saturate and drop covered runs (never planned)

    final int maxRuns;

    /** The bits of a packed run's count; 0 when a run takes two longs. */
    final int countBits;

    final long countMask;

    /**
     * The figures of {@code limit}.
     *
     * @param countRefused whether refused attempts are recorded too (see the class comment)
     * @throws IllegalArgumentException if the runs a window may store do not fit in memory, or
     *     refused attempts are counted with a limit above {@code Long.MAX_VALUE / 3}, which could
     *     overflow the sum
     */
    public Config(Limit limit, boolean countRefused) {
      this(limit, countRefused, true, false);
    }

    /**
     * As {@link #Config(Limit, boolean)}; unless {@code mayPack}, a run always takes two longs;
     * {@code planned} for a key whose limits may change, whose window may hold more than {@code N}
     * after a change (see {@link PlanChange#absorbSliding}): its runs are never packed, its ring
     * may grow to {@code ceil(W / p) + 1} runs, and refused attempts are recorded without the two
     * compressions of the class comment, which rest on holding at most {@code N}.
     */
    Config(Limit limit, boolean countRefused, boolean mayPack, boolean planned) {
      long permits = limit.permits();
      long windowNanos = limit.windowNanos();
      long precisionNanos = limit.precisionNanos();
      long bound = WindowMath.maxRuns(permits, windowNanos, precisionNanos);
      if (bound > WindowMath.MAX_RUNS) {
        throw new IllegalArgumentException(
            "precision: "
                + permits
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
      if (countRefused && permits > Long.MAX_VALUE / 3) {
        throw new IllegalArgumentException(
            "permits must be at most "
                + Long.MAX_VALUE / 3
                + " to count refused attempts, was "
                + permits);
      }
      this.limit = limit;
      this.permits = permits;
      this.windowNanos = windowNanos;
      this.precisionNanos = precisionNanos;
      this.saturate = countRefused;
      this.compress = countRefused && !planned;
      this.maxRuns = (int) (planned ? WindowMath.maxRuns(windowNanos, precisionNanos) : bound);
      int countBits = Long.SIZE - Long.numberOfLeadingZeros(permits);
      int bucketBits = Long.SIZE - Long.numberOfLeadingZeros(Long.MAX_VALUE / precisionNanos);
      this.countBits = mayPack && !planned && countBits + bucketBits <= Long.SIZE ? countBits : 0;
      this.countMask = (1L << this.countBits) - 1;
    }

    /** Whether a run is packed in one long. */
    boolean packed() {
      return countBits != 0;
    }

    @Override
    public Limit limit() {
      return limit;
    }

    @Override
    public LimitRuns create(long start) {
      return new LimitRuns(this, start);
    }
  }

  private final Config config;

  /**
   * The ring, null until the first run: packed runs, or when {@code config.countBits} is 0 pairs
   * {@code runs[2i]} bucket, {@code runs[2i + 1]} count.
   */
  private long[] runs;

  private int head;
  private int size;

  /** The permits in the stored runs; after {@link #expire} these are exactly the counted ones. */
  private long sum;

  /** An empty window of {@code config} whose clock starts at {@code start}. */
  public LimitRuns(Config config, long start) {
    super(start);
    this.config = config;
  }

  @Override
  boolean countsRefused() {
    return config.saturate;
  }

  @Override
  public Limit limit() {
    return config.limit;
  }

  private int capacity() {
    return config.countBits == 0 ? runs.length >> 1 : runs.length;
  }

  private long bucketAt(int slot) {
    int bits = config.countBits;
    return bits == 0 ? runs[slot << 1] : runs[slot] >>> bits;
  }

  private long countAt(int slot) {
    return config.countBits == 0 ? runs[(slot << 1) + 1] : runs[slot] & config.countMask;
  }

  /** Stores a run; {@code count} is at most {@code N} (see the class comment). */
  private void store(int slot, long bucket, long count) {
    int bits = config.countBits;
    if (bits == 0) {
      runs[slot << 1] = bucket;
      runs[(slot << 1) + 1] = count;
    } else {
      runs[slot] = bucket << bits | count;
    }
  }

  /** Drops the runs that have left the window at time {@code now}. */
  @Override
  public void expire(long now) {
    if (now >= nextExpiry()) {
      long oldest = WindowMath.oldestBucket(now, config.windowNanos, config.precisionNanos);
      while (size > 0 && bucketAt(head) < oldest) {
        popHead();
      }
    }
  }

  /** Removes the oldest run. */
  private void popHead() {
    sum -= countAt(head);
    head = head + 1 == capacity() ? 0 : head + 1;
    size--;
    if (size == 0) {
      head = 0;
    }
  }

  /** Whether {@code permits} more fit now; call {@link #expire} first. */
  @Override
  public boolean allows(long permits) {
    return permits <= config.permits - sum;
  }

  /** The permits counted now; call {@link #expire} first. */
  @Override
  public long count() {
    return sum;
  }

  /** The permits still available now, never negative; call {@link #expire} first. */
  @Override
  public long remaining() {
    return Math.max(0, config.permits - sum);
  }

  /** The time at which the oldest stored run leaves the window; MAX_VALUE when none is stored. */
  @Override
  public long nextExpiry() {
    return size == 0
        ? Long.MAX_VALUE
        : WindowMath.leavesAt(bucketAt(head), config.windowNanos, config.precisionNanos);
  }

  /**
   * Adds {@code permits} at time {@code now}; call {@link #expire} first, and unless refused
   * attempts are counted (which saturates), record only what {@link #allows} admits.
   */
  @Override
  public void record(long now, long permits) {
    Config c = config;
    int tail = size == 0 ? -1 : tailIndex();
    if (tail >= 0 && now < WindowMath.bucketEnd(bucketAt(tail), c.precisionNanos)) {
      long count = countAt(tail);
      long updated = c.compress ? Math.min(c.permits, count + permits) : count + permits;
      store(tail, bucketAt(tail), updated);
      sum += updated - count;
      if (c.compress) {
        dropCovered(0);
      }
    } else {
      long bucket = WindowMath.bucket(now, c.precisionNanos);
      long count = c.compress ? Math.min(c.permits, permits) : permits;
      if (c.compress) {
        dropCovered(count);
      }
      push(bucket, count);
      sum += count;
    }
  }

  /**
   * Drops the oldest runs while the newer ones, with {@code pending} permits about to be pushed as
   * the newest run, alone fill the window (see the class comment). Keeps at least one run.
   */
  private void dropCovered(long pending) {
    int keep = pending > 0 ? 0 : 1;
    while (size > keep && sum + pending - countAt(head) >= config.permits) {
      popHead();
    }
  }

  private int tailIndex() {
    int i = head + size - 1;
    int capacity = capacity();
    return i >= capacity ? i - capacity : i;
  }

  private void push(long bucket, long count) {
    if (runs == null) {
      int initial = Math.min(INITIAL_RUNS, config.maxRuns);
      runs = new long[config.countBits == 0 ? initial << 1 : initial];
    } else if (size == capacity()) {
      grow();
    }
    int capacity = capacity();
    int i = head + size;
    store(i >= capacity ? i - capacity : i, bucket, count);
    size++;
  }

  private void grow() {
    int capacity = capacity();
    if (capacity >= config.maxRuns) {
      // The bound in the class comment makes this unreachable; failing loudly beats corrupting.
      throw new IllegalStateException("more than " + config.maxRuns + " runs in one window");
    }
    int grown = (int) Math.min(config.maxRuns, 2L * capacity);
    long[] old = runs;
    int oldHead = head;
    runs = new long[config.countBits == 0 ? grown << 1 : grown];
    head = 0;
    int stride = config.countBits == 0 ? 2 : 1;
    for (int n = 0, i = oldHead; n < size; n++, i = i + 1 == capacity ? 0 : i + 1) {
      System.arraycopy(old, i * stride, runs, n * stride, stride);
    }
  }

  /**
   * How long from {@code now} until {@code permits} more would fit if nothing else were recorded;
   * zero if they fit now. Call {@link #expire} first. Walks the runs, oldest first, until enough
   * have left.
   */
  @Override
  public long retryAfterNanos(long now, long permits) {
    long excess = sum - (config.permits - permits);
    if (excess <= 0) {
      return 0;
    }
    int capacity = capacity();
    long freed = 0;
    long bucket;
    int i = head;
    do {
      bucket = bucketAt(i);
      freed += countAt(i);
      i = i + 1 == capacity ? 0 : i + 1;
    } while (freed < excess);
    return WindowMath.leavesAt(bucket, config.windowNanos, config.precisionNanos) - now;
  }

  /**
   * How long from {@code now} until every counted permit has left the window; zero if none is
   * counted. Call {@link #expire} first.
   */
  @Override
  public long resetAfterNanos(long now) {
    if (size == 0) {
      return 0;
    }
    long newest = bucketAt(tailIndex());
    return WindowMath.leavesAt(newest, config.windowNanos, config.precisionNanos) - now;
  }

  /** The runs stored now. */
  @Override
  public int runCount() {
    return size;
  }

  /** The runs the ring has room for; 0 before the first run. */
  int ringCapacity() {
    return runs == null ? 0 : capacity();
  }

  /** The most runs this window may ever store. */
  public int maxRuns() {
    return config.maxRuns;
  }

  /** Whether no run is stored; call {@link #expire} first to learn whether the window is empty. */
  @Override
  public boolean isEmpty() {
    return size == 0;
  }

  /** The slot of the {@code i}th newest run ({@code i = 0} the newest). */
  private int newest(int i) {
    int slot = head + size - 1 - i;
    int capacity = capacity();
    return slot >= capacity ? slot - capacity : slot;
  }

  @Override
  public long removeNewest(long permits) {
    long removed = 0;
    while (removed < permits && size > 0) {
      int tail = tailIndex();
      long count = countAt(tail);
      long take = Math.min(count, permits - removed);
      if (take == count) {
        dropNewest(0);
      } else {
        store(tail, bucketAt(tail), count - take);
      }
      sum -= take;
      removed += take;
    }
    return removed;
  }

  @Override
  public long removeAt(long time, long permits) {
    long bucket = WindowMath.bucket(time, config.precisionNanos);
    for (int i = 0; i < size; i++) {
      int slot = newest(i);
      long b = bucketAt(slot);
      if (b < bucket) {
        return 0; // runs are kept oldest first: no older one holds the bucket
      }
      if (b == bucket) {
        long count = countAt(slot);
        long take = Math.min(count, permits);
        if (take == count) {
          dropNewest(i);
        } else {
          store(slot, b, count - take);
        }
        sum -= take;
        return take;
      }
    }
    return 0;
  }

  /** Removes the {@code i}th newest run (its count already taken from the sum), keeping order. */
  private void dropNewest(int i) {
    for (int k = i; k > 0; k--) {
      int to = newest(k);
      int from = newest(k - 1);
      store(to, bucketAt(from), countAt(from));
    }
    size--;
    if (size == 0) {
      head = 0;
    }
  }

  @Override
  public void clear() {
    size = 0;
    head = 0;
    sum = 0;
  }

  @Override
  public long runLatest(int i, long now) {
    return Math.min(WindowMath.bucketEnd(bucketAt(newest(i)), config.precisionNanos) - 1, now);
  }

  @Override
  public long runPermits(int i) {
    return countAt(newest(i));
  }

  @Override
  public void absorb(Window source, long now) {
    PlanChange.absorbSliding(this, source, now);
  }
}
