package io.slidingwindow.internal;

/**
 * A window that is also the whole state of a key whose only limit it is ({@link KeyLimits}'s common
 * case: one object per key, besides a sliding window's ring).
 */
abstract sealed class OneWindow extends KeyLimits implements Window
    permits LimitRuns, CalendarCount {

  OneWindow(long start) {
    super(start);
  }

  @Override
  final int limitCount() {
    return 1;
  }

  @Override
  final Window window(int i) {
    return this;
  }
}
