package io.slidingwindow;

import io.slidingwindow.internal.Checks;
import io.slidingwindow.internal.KeyLimits;
import io.slidingwindow.internal.KeyTable;
import io.slidingwindow.internal.Permits;
import java.time.Duration;
import java.util.List;
import java.util.function.LongFunction;

/**
 * The in-process {@link KeyedRateLimiter}: a {@link KeyTable} from key to {@link KeyLimits}, which
 * bounds the tracked keys and evicts a key only once its windows are empty (see its design note).
 * Each key's state is its own table entry and lock; with one limit it is a single object (see
 * {@link KeyLimits} for the memory layout).
 */
final class LocalKeyedRateLimiter<K> implements KeyedRateLimiter<K> {

  private final List<Limit> limits;
  private final long largestGrantable;
  private final Ticker ticker;
  private final long origin;
  private final KeyTable<K, KeyLimits> table;

  /** What {@link #tryAcquire} does per key; built once, so a call allocates nothing. */
  private final KeyTable.Action<KeyLimits, Boolean> tryAcquire;

  /** What {@link #decide} does per key. */
  private final KeyTable.Action<KeyLimits, Decision> decide;

  LocalKeyedRateLimiter(
      List<Limit> limits, boolean countRefused, Ticker ticker, int maxKeys, KeyOverflow overflow) {
    this.limits = limits;
    this.largestGrantable = Permits.largestGrantable(limits);
    this.ticker = ticker;
    // Computes the limits' shared figures once, and fails at build time if a limit cannot fit.
    LongFunction<KeyLimits> newState = KeyLimits.factory(limits, countRefused);
    Limit longest = limits.get(0);
    for (Limit limit : limits) {
      if (limit.windowNanos() > longest.windowNanos()) {
        longest = limit;
      }
    }
    Decision whenFull =
        overflow == KeyOverflow.REFUSE
            ? Decision.refused(0, longest.window(), longest.window(), longest)
            : Decision.granted(0, Duration.ZERO, longest);
    this.tryAcquire =
        new KeyTable.Action<>() {
          @Override
          public Boolean apply(KeyLimits state, long now, long permits) {
            return state.tryAcquire(now, permits); // boxes to a cached Boolean
          }

          @Override
          public Boolean whenFull(long permits) {
            return whenFull.allowed();
          }
        };
    this.decide =
        new KeyTable.Action<>() {
          @Override
          public Decision apply(KeyLimits state, long now, long permits) {
            return state.decide(now, permits);
          }

          @Override
          public Decision whenFull(long permits) {
            return whenFull;
          }
        };
    this.table = new KeyTable<>(maxKeys, newState);
    this.origin = ticker.read();
  }

  @Override
  public boolean tryAcquire(K key, long permits) {
    Checks.requireNonNull(key, "key");
    Permits.check(permits, largestGrantable);
    return table.apply(key, ticker.read() - origin, permits, tryAcquire);
  }

  @Override
  public Decision decide(K key, long permits) {
    Checks.requireNonNull(key, "key");
    Permits.check(permits, largestGrantable);
    return table.apply(key, ticker.read() - origin, permits, decide);
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
    return "KeyedRateLimiter" + limits + " " + table;
  }
}
