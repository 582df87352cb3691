package io.slidingwindow.server.decide;

import io.slidingwindow.FailurePolicy;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.PlanResolver;
import io.slidingwindow.Ticker;
import java.util.List;

/** Counts in this process's memory, on one clock. Thread-safe. */
public final class MemoryStore implements LimiterStore {

  private final Ticker ticker;

  /** A store whose limiters all read {@code ticker}. */
  public MemoryStore(Ticker ticker) {
    this.ticker = ticker;
  }

  @Override
  public KeyedRateLimiter<String> create(
      List<Limit> limits, FailurePolicy failurePolicy, long maxKeys, PlanResolver<String> plans) {
    return KeyedRateLimiter.builder().limits(limits).ticker(ticker).maxKeys(maxKeys).build(plans);
  }

  @Override
  public boolean inMemory() {
    return true;
  }

  @Override
  public void close() {}

  @Override
  public String toString() {
    return "in memory";
  }
}
