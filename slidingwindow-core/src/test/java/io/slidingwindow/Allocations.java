package io.slidingwindow;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/** Measures the bytes the calling thread allocates, for tests of allocation-free paths. */
final class Allocations {

  private Allocations() {}

  /**
   * Runs {@code round} once to warm up, then {@code rounds} more times, and returns the bytes the
   * thread allocated in each of the measured rounds.
   */
  static List<Long> perRound(int rounds, Runnable round) {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    round.run();
    List<Long> allocated = new ArrayList<>(rounds);
    for (int i = 0; i < rounds; i++) {
      long before = threads.getCurrentThreadAllocatedBytes();
      round.run();
      allocated.add(threads.getCurrentThreadAllocatedBytes() - before);
    }
    return allocated;
  }
}
