package io.slidingwindow.internal;

import java.util.concurrent.TimeUnit;

/** How a blocking acquire waits; replaced in tests so that waiting advances a fake clock. */
@FunctionalInterface
public interface Sleeper {

  Sleeper SYSTEM = TimeUnit.NANOSECONDS::sleep;

  void sleep(long nanos) throws InterruptedException;
}
