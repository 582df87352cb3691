package io.slidingwindow.redis;

import java.util.List;

/**
 * The Java side of {@code counter.lua}'s contract (its header is the reference) for one counter
 * configuration: arguments {@code [amount, "add" | "get", now µs or "", size, interval µs,
 * ttlMillis]}, reply {@code [sum, count, now µs]}. Immutable.
 */
final class CounterScript {

  private final String suffix;
  private final String size;
  private final String intervalMicros;
  private final String ttlMillis;

  /** With client time, keys live at least {@link LimiterScript#CLIENT_TIME_MIN_TTL_MILLIS}. */
  CounterScript(int size, long intervalMicros, boolean clientTime) {
    this.suffix = "c:" + size + ":" + intervalMicros;
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

  static long sum(List<Object> reply) {
    return (Long) reply.get(0);
  }

  static long count(List<Object> reply) {
    return (Long) reply.get(1);
  }

  @Override
  public String toString() {
    return size + " x " + intervalMicros + " µs";
  }
}
