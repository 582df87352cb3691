package io.slidingwindow;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A ticker moved by hand, for the core's own tests (the testkit's FakeTicker depends on the core,
 * so the core cannot use it).
 */
final class ManualTicker implements Ticker {

  private final AtomicLong nanos;

  ManualTicker(long start) {
    nanos = new AtomicLong(start);
  }

  @Override
  public long read() {
    return nanos.get();
  }

  void advance(long delta) {
    nanos.addAndGet(delta);
  }

  void set(long value) {
    nanos.set(value);
  }
}
