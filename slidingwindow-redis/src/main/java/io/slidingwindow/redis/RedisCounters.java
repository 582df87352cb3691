package io.slidingwindow.redis;

import io.slidingwindow.RollingCounters;
import io.slidingwindow.Ticker;
import io.slidingwindow.internal.Checks;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Windowed counters in Redis for risk-control questions ("logins from this IP in the last ten
 * minutes", "amount charged to this card in the last hour"), shared by every instance: the {@link
 * RollingCounters} whose state lives in Redis, so that code written against {@code
 * RollingCounters<String>} runs on either.
 *
 * <p>Semantics: those of {@link RollingCounters}. Time is cut into buckets of width {@code
 * interval}; {@code b(t) = floor(t / interval)}. At time {@code t}, {@link #sum} and {@link #count}
 * cover the buckets {@code b(t) - size + 1} through {@code b(t)}: the span {@code [(b(t) - size +
 * 1) * interval, t]}, which is between {@code (size - 1) * interval} and {@code size * interval}
 * long. {@link #addAndGet} adds one event of {@code amount} to bucket {@code b(t)} and returns the
 * sum after it, in one round trip. A time smaller than the latest one counts as that latest one (on
 * the server's clock, the latest the id has seen; on client time, the latest reading of these
 * counters). Amounts are not negative; sums saturate at {@link Long#MAX_VALUE}.
 *
 * <p>Time. {@code t} is the server's {@code TIME} in microseconds since the Unix epoch, so every
 * instance counts the same buckets, aligned to the epoch; the hash keeps the latest time the id has
 * seen. With {@link Builder#clientTime(Ticker)}, {@code t} is that ticker's reading, truncated to
 * microseconds since its first reading (made when the counters are built), as for the in-process
 * counters, and the latest reading is kept here, not in Redis: that clock is this instance's alone,
 * so its keys are too (their names end in a run id drawn when the counters are built). Counters
 * built again, as after a restart, start with empty windows, and never see the adds of the earlier
 * ones, whose keys expire unread. The interval must be whole microseconds.
 *
 * <p>Storage. One Redis HASH per id ({@code <prefix>:{<id tag>}:c:<size>:<interval µs>}, with
 * {@code :<run id>} appended on client time) with a sum and a count field per non-empty bucket and,
 * on the server's clock, the latest time seen; each call reads the hash and deletes the buckets
 * that have left (on client time only adds do: reads write nothing), O(size) work, which is why
 * {@code size} is at most {@value #MAX_SIZE}. The key expires {@code (size + 1) * interval} after
 * the last add (on client time, at least a minute): there is no key table, so no bound on keys and
 * no {@link io.slidingwindow.KeyOverflow} policy ({@link io.slidingwindow.KeyOverflowException} is
 * never thrown), and {@link #cleanUp()} has nothing to do.
 *
 * <p>Ids. As for the limiter, an id is stored as {@link io.slidingwindow.LimiterKeys#bounded}: an
 * id of any length and content is counted, in a key of bounded length.
 *
 * <p>Failures. Unlike a limiter, a counter has no safe default answer: when Redis fails or does not
 * answer within the command timeout (50 ms by default), the call throws a {@link
 * RedisCallException}. Thread-safe.
 */
public final class RedisCounters implements RollingCounters<String> {

  /** The most buckets a counter may cover. */
  public static final int MAX_SIZE = 1024;

  private final RedisBackend backend;
  private final ScriptCalls calls;
  private final String prefix;
  private final CounterScript script;
  private final Ticker clientTime;
  private final long origin;

  /** With client time, the latest reading in µs since {@link #origin}: time never goes back. */
  private final AtomicLong latest = new AtomicLong();

  private final long timeoutNanos;
  private final int size;
  private final Duration interval;

  private RedisCounters(Builder b) {
    this.backend = b.backend;
    this.calls = backend.calls();
    this.prefix = b.keyPrefix;
    this.script =
        new CounterScript(
            b.size,
            b.interval.toNanos() / 1000,
            b.clientTime == null ? null : Long.toHexString(ThreadLocalRandom.current().nextLong()));
    this.clientTime = b.clientTime;
    this.origin = clientTime == null ? 0 : clientTime.read();
    this.timeoutNanos = b.commandTimeout.toNanos();
    this.size = b.size;
    this.interval = b.interval;
  }

  /**
   * Returns a builder of counters on {@code backend}.
   *
   * @throws IllegalArgumentException if {@code backend} is null
   */
  public static Builder builder(RedisBackend backend) {
    if (backend == null) {
      throw new IllegalArgumentException("backend must not be null");
    }
    return new Builder(backend);
  }

  /**
   * Adds one event of {@code amount} for {@code id} now and returns the sum it covers afterwards.
   *
   * @throws IllegalArgumentException if {@code id} is null or {@code amount} is negative
   * @throws RedisCallException if Redis fails or does not answer in time
   */
  @Override
  public long addAndGet(String id, long amount) {
    String[] keys = keysOf(id);
    Checks.requireNonNegative(amount, "amount");
    return CounterScript.sum(call(keys, true, amount));
  }

  /**
   * The sum of the amounts added for {@code id} in the covered span; {@code 0} for an id without
   * one.
   *
   * @throws IllegalArgumentException if {@code id} is null
   * @throws RedisCallException as {@link #addAndGet}
   */
  @Override
  public long sum(String id) {
    return CounterScript.sum(call(keysOf(id), false, 0));
  }

  /**
   * The number of events added for {@code id} in the covered span; {@code 0} for an id without one.
   *
   * @throws IllegalArgumentException if {@code id} is null
   * @throws RedisCallException as {@link #addAndGet}
   */
  @Override
  public long count(String id) {
    return CounterScript.count(call(keysOf(id), false, 0));
  }

  /** The number of buckets covered, as set by {@link Builder#size}. */
  @Override
  public int size() {
    return size;
  }

  /** The width of a bucket, as set by {@link Builder#interval}. */
  @Override
  public Duration interval() {
    return interval;
  }

  /**
   * Does nothing, and calls no server: an id's key expires by itself {@code (size + 1) * interval}
   * after its last add, and each call deletes the buckets of its id that have left.
   */
  @Override
  public void cleanUp() {}

  /**
   * The key of {@code id}.
   *
   * @throws IllegalArgumentException if {@code id} is null
   */
  private String[] keysOf(String id) {
    return script.keys(Keys.tagged(prefix, id));
  }

  /** The Redis key of {@code id}'s hash, for tests. */
  String keyOf(String id) {
    return keysOf(id)[0];
  }

  private List<Object> call(String[] keys, boolean add, long amount) {
    String now = clientTime == null ? "" : Long.toString(clientMicros());
    try {
      return calls.await(
          calls.run(Script.COUNTER, keys, script.args(amount, add, now)), timeoutNanos);
    } catch (TimeoutException e) {
      throw new RedisCallException(
          "no answer from Redis within " + Duration.ofNanos(timeoutNanos) + " on " + backend, e);
    } catch (ExecutionException e) {
      Throwable cause = ScriptCalls.unwrap(e.getCause());
      throw new RedisCallException("Redis call failed on " + backend + ": " + cause, cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RedisCallException("interrupted while waiting for Redis on " + backend, e);
    }
  }

  /**
   * The client time now: the ticker's reading in µs since {@link #origin}, or the latest one if it
   * is smaller (a ticker that goes back means no time passed).
   */
  private long clientMicros() {
    long reading = Math.floorDiv(clientTime.read() - origin, 1000L);
    return latest.accumulateAndGet(reading, Math::max);
  }

  @Override
  public String toString() {
    return "RedisCounters[" + script + " on " + backend + "]";
  }

  /**
   * Builds {@link RedisCounters}. Each setting may be set once: setting it again to a different
   * value throws {@link IllegalStateException}. Not thread-safe.
   */
  public static final class Builder extends RedisBuilder<Builder> {

    private int size = 60;
    private Duration interval = Duration.ofSeconds(1);

    private Builder(RedisBackend backend) {
      super(backend);
    }

    /**
     * Sets how many buckets are covered, 60 by default.
     *
     * @throws IllegalArgumentException if {@code size} is not in 1 .. {@value
     *     RedisCounters#MAX_SIZE}
     * @throws IllegalStateException if another size was set
     */
    public Builder size(int size) {
      Checks.requireBetween(size, 1, MAX_SIZE, "size");
      this.size = once("size", size);
      return this;
    }

    /**
     * Sets the width of a bucket, one second by default.
     *
     * @throws IllegalArgumentException if {@code interval} is null, not positive, not a whole
     *     number of microseconds, or longer than a year
     * @throws IllegalStateException if another interval was set
     */
    public Builder interval(Duration interval) {
      if (interval == null
          || interval.isNegative()
          || interval.isZero()
          || interval.compareTo(Duration.ofDays(366)) > 0
          || interval.toNanos() % 1000 != 0) {
        throw new IllegalArgumentException(
            "interval must be a positive whole number of microseconds, at most a year, was "
                + interval);
      }
      this.interval = once("interval", interval);
      return this;
    }

    /** Builds the counters; with client time, reads the ticker once as the origin. */
    public RedisCounters build() {
      return new RedisCounters(this);
    }
  }
}
