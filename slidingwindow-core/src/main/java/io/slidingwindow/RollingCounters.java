package io.slidingwindow;

import io.slidingwindow.internal.Checks;
import io.slidingwindow.internal.KeyBound;
import java.time.Duration;

/**
 * Rolling sums and counts for many keys, one window per key: "logins from this IP in the last 10
 * minutes", "amount charged to this card in the last hour".
 *
 * <p><b>Which adds a window counts.</b> Each key's window is {@code size} buckets of width {@code
 * interval}, with the semantics of {@link RollingWindow}: time {@code t} is nanoseconds since the
 * counters' origin (the ticker's first read, when they are built), a reading smaller than the
 * latest one a key has seen counts as that latest one, an add goes to bucket {@code b(t) = floor(t
 * / interval)}, and at time {@code t} a key's sum and count cover buckets {@code b(t) - size + 1}
 * through {@code b(t)}: every add in the span {@code [(b(t) - size + 1) * interval, t]}, between
 * {@code (size - 1) * interval} and {@code size * interval} long. The Redis counters of this
 * library ({@code RedisCounters} in {@code slidingwindow-redis}) count the same buckets, on the
 * Redis server's clock in microseconds, whose origin is the Unix epoch, so that every instance
 * sharing the server counts the same buckets; given a client ticker instead, they read it as the
 * in-process counters do, truncated to microseconds.
 *
 * <p><b>Keys and memory.</b> The in-process counters track a key from its first add and evict it
 * once its window counts nothing, which forgets nothing. At most {@link Builder#maxKeys(long)} keys
 * are tracked; what happens to adds for new keys beyond that is the {@link KeyOverflow} policy, as
 * for {@link KeyedRateLimiter}. An implementation without a key table, such as the Redis counters,
 * whose keys expire in the store a while after their last add, has no such bound: it never refuses
 * a key, and the key-overflow clauses below do not apply to it. A tracked key costs about 140
 * bytes, plus 24 bytes per slot of its ring of non-empty buckets, plus the key itself. The ring
 * starts at two slots and doubles, up to {@code size}, whenever the key holds more non-empty
 * buckets than it fits, and never shrinks while the key is tracked: it has at most twice as many
 * slots as the most non-empty buckets the key has held at once, and at most {@code size} ({@code 24
 * * size} bytes). An evicted key frees it all.
 *
 * <p><b>Thread-safety.</b> The in-process implementation from {@link #builder} is thread-safe: each
 * key has its own lock, adds for different keys do not contend, and an add of an already tracked
 * key allocates nothing. The Redis counters are thread-safe too; each of their calls is one atomic
 * script call.
 *
 * <p><b>Failures.</b> Besides the exceptions each method states, an implementation backed by a
 * store may throw that store's unchecked exception when the store fails or does not answer in time,
 * since a counter has no safe default answer: the Redis counters throw {@code RedisCallException}.
 * The in-process counters never do.
 *
 * @param <K> the key type; keys need consistent {@code equals} and {@code hashCode}
 */
public interface RollingCounters<K> {

  /**
   * Adds {@code amount} to {@code key}'s current bucket and returns the key's windowed sum after
   * the add, so that a threshold check takes one call: {@code if (counters.addAndGet(ip, 1) > 20)
   * block(ip)}. Sums saturate at {@link Long#MAX_VALUE}.
   *
   * <p>In process, when the key is new and {@link Builder#maxKeys(long)} keys with non-empty
   * windows are tracked, nothing is recorded and the outcome follows the {@link KeyOverflow}
   * policy: {@link KeyOverflow#REFUSE} throws {@link KeyOverflowException}, which a threshold check
   * should take as over every threshold (fail closed); {@link KeyOverflow#ALLOW_UNTRACKED} returns
   * {@code amount}, the sum of a window holding this add alone, so that threshold checks fail open.
   *
   * @throws IllegalArgumentException if {@code key} is null or {@code amount} is negative
   * @throws KeyOverflowException if the key is new, the counters track their most keys, none can be
   *     evicted, and the policy is {@link KeyOverflow#REFUSE}
   */
  long addAndGet(K key, long amount);

  /**
   * Adds one; as {@link #addAndGet(Object, long)}.
   *
   * @throws IllegalArgumentException if {@code key} is null
   * @throws KeyOverflowException as {@link #addAndGet(Object, long)}
   */
  default long incrementAndGet(K key) {
    return addAndGet(key, 1);
  }

  /**
   * The sum of the amounts added to {@code key} in the span its window covers now; {@code 0} for a
   * key that is not tracked.
   *
   * @throws IllegalArgumentException if {@code key} is null
   */
  long sum(K key);

  /**
   * How many adds to {@code key} fall in the span its window covers now; {@code 0} for a key that
   * is not tracked.
   *
   * @throws IllegalArgumentException if {@code key} is null
   */
  long count(K key);

  /**
   * The number of buckets of each key's window: at most {@link RollingWindow#MAX_SIZE} in process,
   * at most {@code RedisCounters.MAX_SIZE} (1024) in Redis, whose every call reads the whole
   * window.
   */
  int size();

  /** The width of one bucket (whole microseconds in Redis). */
  Duration interval();

  /**
   * Evicts every key whose window counts nothing now; sums and counts do not change. The in-process
   * counters also do this incrementally, a few keys each time they start tracking a new one; call
   * this to reclaim memory at once. Implementations whose keys expire by themselves, such as the
   * Redis counters, do nothing.
   */
  void cleanUp();

  /**
   * Returns a builder of in-process counters whose windows are {@code size} buckets of width {@code
   * interval}.
   *
   * @throws IllegalArgumentException if {@code size} is not positive or exceeds {@link
   *     RollingWindow#MAX_SIZE}, or {@code interval} is null, not positive, or {@code size *
   *     interval} exceeds {@link Long#MAX_VALUE} nanoseconds
   */
  static Builder builder(int size, Duration interval) {
    return new Builder(size, interval);
  }

  /**
   * Builds in-process {@link RollingCounters}. Each setting may be set once: setting it again to a
   * different value throws {@link IllegalStateException}. Not thread-safe.
   */
  final class Builder {

    /** The default bound on tracked keys. */
    public static final long DEFAULT_MAX_KEYS = KeyBound.DEFAULT_MAX_KEYS;

    private final int size;
    private final long intervalNanos;

    private final KeyBound<Builder> keyBound = new KeyBound<>(this);

    /** Null until set. */
    private Ticker ticker;

    Builder(int size, Duration interval) {
      this.size = RollingWindow.checkSize(size);
      this.intervalNanos = Checks.requirePositiveNanos(interval, "interval");
      RollingWindow.checkSpan(this.size, intervalNanos);
    }

    /**
     * Sets the clock, {@link Ticker#coarse()} by default (cheap to read, about a millisecond
     * behind; see {@link RollingWindow.Builder#ticker}); pass {@link Ticker#system()} for exact
     * bucket edges. It is read once when the counters are built (their origin) and once per
     * operation.
     *
     * @throws IllegalArgumentException if {@code ticker} is null
     * @throws IllegalStateException if another ticker was set
     */
    public Builder ticker(Ticker ticker) {
      Checks.requireNonNull(ticker, "ticker");
      this.ticker = Checks.setOnce(this.ticker, ticker, "ticker");
      return this;
    }

    /**
     * Sets the most keys tracked at once, {@value #DEFAULT_MAX_KEYS} by default.
     *
     * @throws IllegalArgumentException if {@code maxKeys} is not positive or exceeds {@link
     *     Integer#MAX_VALUE}
     * @throws IllegalStateException if a different bound was set
     */
    public Builder maxKeys(long maxKeys) {
      return keyBound.maxKeys(maxKeys);
    }

    /**
     * Sets what happens to adds for new keys while {@link #maxKeys} keys are tracked, {@link
     * KeyOverflow#REFUSE} by default.
     *
     * @throws IllegalArgumentException if {@code overflow} is null
     * @throws IllegalStateException if a different policy was set
     */
    public Builder onKeyOverflow(KeyOverflow overflow) {
      return keyBound.onKeyOverflow(overflow);
    }

    /**
     * Builds the counters and reads the clock once, as the origin of every key's buckets.
     *
     * @param <K> the key type
     */
    public <K> RollingCounters<K> build() {
      return new LocalRollingCounters<>(
          size,
          intervalNanos,
          ticker == null ? Ticker.coarse() : ticker,
          keyBound.maxKeys(),
          keyBound.overflow());
    }
  }
}
