package io.slidingwindow.testkit;

import io.slidingwindow.RollingCounters;
import io.slidingwindow.Ticker;
import java.time.Duration;

/** The in-process rolling counters against the counters' conformance kit. */
class LocalRollingCountersConformanceTest extends RollingCountersConformance {

  @Override
  protected RollingCounters<String> newCounters(int size, Duration interval, Ticker ticker) {
    return RollingCounters.builder(size, interval).ticker(ticker).build();
  }
}
