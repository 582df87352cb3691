package io.slidingwindow.redis;

import java.util.List;

/**
 * The Java side of {@code counter.lua}'s contract (its header is the reference) for one counter
 * configuration: keys {@code <tagged>c:<size>:<interval µs>} on the server's clock, {@code
 * <tagged>c:<size>:<interval µs>:<run id>} on client time; arguments {@code [amount, "add" | "get",
 * now µs or "", size, interval µs, ttlMillis]}, reply {@code [sum high, sum low, count, now µs]},
 * the sum being {@code high * 10^9 + low}. Immutable.
 */
final class CounterScript {

  private static final long BILLION = 1_000_000_000L;
  private static final long MAX_HIGH = Long.MAX_VALUE / BILLION;
  private static final long MAX_LOW = Long.MAX_VALUE % BILLION;

  private final String suffix;
  private final String size;
  private final String intervalMicros;
  private final String ttlMillis;

  /**
   * The script of counters on the server's clock ({@code run} null), or on client time: then the
   * keys end in {@code ":" + run}, the run id of one counters instance, whose clock no other
   * instance shares, and live at least {@link LimiterScript#CLIENT_TIME_MIN_TTL_MILLIS}.
   */
  CounterScript(int size, long intervalMicros, String run) {
    boolean clientTime = run != null;
    this.suffix = "c:" + size + ":" + intervalMicros + (clientTime ? ":" + run : "");
    this.size = Integer.toString(size);
    this.intervalMicros = Long.toString(intervalMicros);
    long ttl = ((size + 1L) * intervalMicros + 999) / 1000;
    this.ttlMillis =
        Long.toString(clientTime ? Math.max(ttl, LimiterScript.CLIENT_TIME_MIN_TTL_MILLIS) : ttl);
  }

  /** The key of the id whose tagged prefix is {@code tagged}. */
  String[] keys(String tagged) {
    return new String[] {tagged + suffix};
  }

  /** The arguments: add {@code amount} first if {@code add}, else only read. */
  String[] args(long amount, boolean add, String now) {
    return new String[] {
      Long.toString(amount), add ? "add" : "get", now, size, intervalMicros, ttlMillis
    };
  }

  /**
   * The sum of a reply, {@code high * 10^9 + low} with {@code 0 <= low < 10^9}, saturated at {@link
   * Long#MAX_VALUE} (and, for sums of negative amounts that an older version stored, at {@link
   * Long#MIN_VALUE}).
   */
  static long sum(List<Object> reply) {
    long high = (Long) reply.get(0);
    long low = (Long) reply.get(1);
    if (high > MAX_HIGH || (high == MAX_HIGH && low > MAX_LOW)) {
      return Long.MAX_VALUE;
    }
    if (high < -MAX_HIGH) {
      return Long.MIN_VALUE;
    }
    return high * BILLION + low;
  }

  static long count(List<Object> reply) {
    return (Long) reply.get(2);
  }

  @Override
  public String toString() {
    return size + " x " + intervalMicros + " µs";
  }
}
