package io.slidingwindow.benchmarks.server;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * BENCHMARK HARNESS support: every answer the load generator received, with the descriptor value it
 * was for and its send and receive times ({@code System.nanoTime}), in preallocated arrays.
 *
 * <p>Thread-safe for {@link #record}: each call claims its own slot with an atomic increment and
 * writes only that slot. The readers ({@link #size} and the getters) may be used only after every
 * recording thread has finished, with a happens-before edge (the generator's latch) in between.
 */
final class AnswerLog {

  /** The answer codes kept; errors (no answer) are only counted. */
  static final byte OK = 1;

  static final byte OVER_LIMIT = 2;

  private final int[] values;
  private final long[] sendNanos;
  private final long[] receiveNanos;
  private final byte[] codes;
  private final AtomicInteger next = new AtomicInteger();

  /** An empty log for at most {@code capacity} answers. */
  AnswerLog(int capacity) {
    if (capacity <= 0) {
      throw new IllegalArgumentException("capacity must be positive, was " + capacity);
    }
    values = new int[capacity];
    sendNanos = new long[capacity];
    receiveNanos = new long[capacity];
    codes = new byte[capacity];
  }

  /**
   * Records one answer; false (and nothing recorded) when the log is full. Thread-safe.
   *
   * @param value the descriptor value's index
   * @param sentAt {@code System.nanoTime()} just before the call was made
   * @param receivedAt {@code System.nanoTime()} when its answer arrived
   * @param code {@link #OK} or {@link #OVER_LIMIT}
   */
  boolean record(int value, long sentAt, long receivedAt, byte code) {
    int slot = next.getAndIncrement();
    if (slot >= codes.length) {
      return false; // size() caps the count at the capacity
    }
    values[slot] = value;
    sendNanos[slot] = sentAt;
    receiveNanos[slot] = receivedAt;
    codes[slot] = code;
    return true;
  }

  /** The number of answers recorded. */
  int size() {
    return Math.min(next.get(), codes.length);
  }

  int value(int i) {
    return values[i];
  }

  long sentAt(int i) {
    return sendNanos[i];
  }

  long receivedAt(int i) {
    return receiveNanos[i];
  }

  byte code(int i) {
    return codes[i];
  }
}
