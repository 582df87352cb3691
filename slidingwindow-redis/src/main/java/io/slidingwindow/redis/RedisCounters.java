package io.slidingwindow.redis;

import io.slidingwindow.Ticker;
import io.slidingwindow.internal.Checks;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * Windowed counters in Redis for risk-control questions ("logins from this IP in the last ten
 * minutes", "amount charged to this card in the last hour"), shared by every instance.
 *
 * <p>Semantics (those of the in-process rolling counters). Time is cut into buckets of width {@code
 * interval}; {@code b(t) = floor(t / interval)}. At time {@code t}, {@link #sum} and {@link #count}
 * cover the buckets {@code b(t) - size + 1} through {@code b(t)}: the span {@code [(b(t) - size +
 * 1) * interval, t]}, which is between {@code (size - 1) * interval} and {@code size * interval}
 * long. {@link #addAndGet} adds one event of {@code amount} to bucket {@code b(t)} and returns the
 * sum after it, in one round trip.
 *
 * <p>Storage. One Redis HASH per id ({@code <prefix>:{<id tag>}:c:<size>:<interval µs>}) with a sum
 * and a count field per non-empty bucket; each call reads the hash and deletes the buckets that
 * have left, O(size) work, which is why {@code size} is at most {@value #MAX_SIZE}. The key expires
 * {@code (size + 1) * interval} after the last add. Time is the server's {@code TIME} in
 * microseconds unless {@link Builder#clientTime(Ticker)} is set; the interval must be whole
 * microseconds. Sums are exact while below 2<sup>53</sup> in magnitude.
 *
 * <p>Ids. As for the limiter, an id is stored as {@link io.slidingwindow.LimiterKeys#bounded}: an
 * id of any length and content is counted, in a key of bounded length.
 *
 * <p>Failures. Unlike a limiter, a counter has no safe default answer: when Redis fails or does not
 * answer within the command timeout (50 ms by default), the call throws a {@link
 * RedisCallException}. Thread-safe.
 */
public final class RedisCounters {

  /** The most buckets a counter may cover. */
  public static final int MAX_SIZE = 1024;

  private final RedisBackend backend;
  private final ScriptCalls calls;
  private final String prefix;
  private final CounterScript script;
  private final Ticker clientTime;
  private final long origin;
  private final long timeoutNanos;

  private RedisCounters(Builder b) {
    this.backend = b.backend;
    this.calls = backend.calls();
    this.prefix = b.keyPrefix;
    this.script = new CounterScript(b.size, b.interval.toNanos() / 1000, b.clientTime != null);
    this.clientTime = b.clientTime;
    this.origin = clientTime == null ? 0 : clientTime.read();
    this.timeoutNanos = b.commandTimeout.toNanos();
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
   * @throws IllegalArgumentException if {@code id} is null
   * @throws RedisCallException if Redis fails or does not answer in time
   */
  public long addAndGet(String id, long amount) {
    return CounterScript.sum(call(id, true, amount));
  }

  /**
   * The sum of the amounts added for {@code id} in the covered span.
   *
   * @throws IllegalArgumentException as {@link #addAndGet}
   * @throws RedisCallException as {@link #addAndGet}
   */
  public long sum(String id) {
    return CounterScript.sum(call(id, false, 0));
  }

  /**
   * The number of events added for {@code id} in the covered span.
   *
   * @throws IllegalArgumentException as {@link #addAndGet}
   * @throws RedisCallException as {@link #addAndGet}
   */
  public long count(String id) {
    return CounterScript.count(call(id, false, 0));
  }

  private List<Object> call(String id, boolean add, long amount) {
    String[] keys = script.keys(Keys.tagged(prefix, id));
    String now =
        clientTime == null ? "" : Long.toString(Math.floorDiv(clientTime.read() - origin, 1000L));
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
