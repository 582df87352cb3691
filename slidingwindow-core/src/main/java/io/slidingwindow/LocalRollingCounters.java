package io.slidingwindow;

import io.slidingwindow.internal.Checks;
import io.slidingwindow.internal.CounterRuns;
import io.slidingwindow.internal.KeyTable;
import java.time.Duration;

/**
 * The in-process {@link RollingCounters}: a {@link KeyTable} from key to {@link CounterRuns}, the
 * same bounded, evicting table as the in-process keyed limiter's, with string keys stored as {@link
 * LimiterKeys#bounded(String)} of themselves.
 */
final class LocalRollingCounters<K> extends LocalKeyed<K, CounterRuns>
    implements RollingCounters<K> {

  private final int size;
  private final long intervalNanos;

  /** What {@link #addAndGet} does per key; built once, so a call allocates nothing. */
  private final KeyTable.Action<CounterRuns, Void> add;

  LocalRollingCounters(
      int size, long intervalNanos, Ticker ticker, int maxKeys, KeyOverflow overflow) {
    super(new KeyTable<>(maxKeys, start -> new CounterRuns(size, intervalNanos, start)), ticker);
    this.size = size;
    this.intervalNanos = intervalNanos;
    this.add =
        new KeyTable.Action<>() {
          @Override
          public long apply(CounterRuns state, long now, long amount, Void unused) {
            return state.add(now, amount);
          }

          @Override
          public long whenFull(long amount, Void unused) {
            if (overflow == KeyOverflow.REFUSE) {
              throw new KeyOverflowException(maxKeys);
            }
            return amount; // the sum of a window holding this add alone
          }
        };
  }

  @Override
  public long addAndGet(K key, long amount) {
    K stored = bounded(key);
    Checks.requireNonNegative(amount, "amount");
    return table.apply(stored, now(), amount, null, add);
  }

  @Override
  public long sum(K key) {
    return table.readIfTracked(bounded(key), now(), CounterRuns::sum, 0);
  }

  @Override
  public long count(K key) {
    return table.readIfTracked(bounded(key), now(), CounterRuns::count, 0);
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public Duration interval() {
    return Duration.ofNanos(intervalNanos);
  }

  @Override
  public String toString() {
    return "RollingCounters[" + size + " x " + interval() + "] " + table;
  }
}
