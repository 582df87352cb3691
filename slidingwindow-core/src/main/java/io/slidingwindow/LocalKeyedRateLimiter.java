package io.slidingwindow;

import io.slidingwindow.internal.Checks;
import io.slidingwindow.internal.KeyTable;
import io.slidingwindow.internal.Permits;
import io.slidingwindow.internal.WindowSet;
import java.time.Duration;
import java.util.List;

/**
 * The in-process {@link KeyedRateLimiter}: a {@link KeyTable} from key to {@link WindowSet}, which
 * bounds the tracked keys and evicts a key only once its windows are empty (see its design note).
 */
final class LocalKeyedRateLimiter<K> implements KeyedRateLimiter<K> {

  private final List<Limit> limits;
  private final long largestGrantable;
  private final Ticker ticker;
  private final long origin;
  private final int maxKeys;
  private final Decision overflowDecision;
  private final KeyTable<K, WindowSet> table;

  LocalKeyedRateLimiter(
      List<Limit> limits, boolean countRefused, Ticker ticker, int maxKeys, KeyOverflow overflow) {
    this.limits = limits;
    this.largestGrantable = Permits.largestGrantable(limits);
    this.ticker = ticker;
    this.maxKeys = maxKeys;
    new WindowSet(limits, countRefused, 0); // fail at build time if a limit cannot fit in memory
    Limit longest = limits.get(0);
    for (Limit limit : limits) {
      if (limit.windowNanos() > longest.windowNanos()) {
        longest = limit;
      }
    }
    this.overflowDecision =
        overflow == KeyOverflow.REFUSE
            ? Decision.refused(0, longest.window(), longest.window(), longest)
            : Decision.granted(0, Duration.ZERO, longest);
    this.table =
        new KeyTable<>(maxKeys, start -> new WindowSet(limits, countRefused, start));
    this.origin = ticker.read();
  }

  @Override
  public boolean tryAcquire(K key, long permits) {
    Checks.requireNonNull(key, "key");
    Permits.check(permits, largestGrantable);
    long now = ticker.read() - origin;
    for (; ; ) {
      KeyTable.Entry<WindowSet> entry = table.entryFor(key, now);
      if (entry == null) {
        return overflowDecision.allowed();
      }
      synchronized (entry) {
        if (entry.claim()) {
          return entry.state().tryAcquire(now, permits);
        }
      }
    }
  }

  @Override
  public Decision decide(K key, long permits) {
    Checks.requireNonNull(key, "key");
    Permits.check(permits, largestGrantable);
    long now = ticker.read() - origin;
    for (; ; ) {
      KeyTable.Entry<WindowSet> entry = table.entryFor(key, now);
      if (entry == null) {
        return overflowDecision;
      }
      synchronized (entry) {
        if (entry.claim()) {
          return entry.state().decide(now, permits);
        }
      }
    }
  }

  @Override
  public List<Limit> limits() {
    return limits;
  }

  @Override
  public void cleanUp() {
    table.cleanUp(ticker.read() - origin);
  }

  /** The keys tracked now. */
  int trackedKeys() {
    return table.size();
  }

  @Override
  public String toString() {
    return "KeyedRateLimiter" + limits + " tracking " + table.size() + " of at most " + maxKeys + " keys";
  }
}
