package io.slidingwindow;

import io.slidingwindow.internal.Checks;
import io.slidingwindow.internal.KeyTable;
import io.slidingwindow.internal.RollingSums;
import java.time.Duration;

/**
 * The in-process {@link RollingCounters}: a {@link KeyTable} from key to {@link RollingSums}, the
 * same bounded, evicting table as the in-process keyed limiter's.
 */
final class LocalRollingCounters<K> implements RollingCounters<K> {

  private final int size;
  private final long intervalNanos;
  private final Ticker ticker;
  private final long origin;
  private final KeyOverflow overflow;
  private final KeyTable<K, RollingSums> table;

  LocalRollingCounters(
      int size, long intervalNanos, Ticker ticker, int maxKeys, KeyOverflow overflow) {
    this.size = size;
    this.intervalNanos = intervalNanos;
    this.ticker = ticker;
    this.overflow = overflow;
    this.table =
        new KeyTable<>(maxKeys, start -> new RollingSums(size, intervalNanos, start));
    this.origin = ticker.read();
  }

  @Override
  public long addAndGet(K key, long amount) {
    Checks.requireNonNull(key, "key");
    Checks.requireNonNegative(amount, "amount");
    long now = ticker.read() - origin;
    for (; ; ) {
      KeyTable.Entry<RollingSums> entry = table.entryFor(key, now);
      if (entry == null) {
        return overflow == KeyOverflow.REFUSE ? Long.MAX_VALUE : amount;
      }
      synchronized (entry) {
        if (entry.claim()) {
          return entry.state().add(now, amount);
        }
      }
    }
  }

  @Override
  public long sum(K key) {
    return read(key, true);
  }

  @Override
  public long count(K key) {
    return read(key, false);
  }

  /** The window's sum or count for {@code key} now, without tracking the key. */
  private long read(K key, boolean sum) {
    Checks.requireNonNull(key, "key");
    long now = ticker.read() - origin;
    KeyTable.Entry<RollingSums> entry = table.existing(key);
    if (entry == null) {
      return 0;
    }
    synchronized (entry) {
      // A retired entry was empty when it left; a newer entry, if any, was not yet there when
      // this call looked the key up.
      if (entry.isRetired()) {
        return 0;
      }
      return sum ? entry.state().sum(now) : entry.state().count(now);
    }
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
  public void cleanUp() {
    table.cleanUp(ticker.read() - origin);
  }

  /** The keys tracked now. */
  int trackedKeys() {
    return table.size();
  }

  @Override
  public String toString() {
    return "RollingCounters["
        + size
        + " x "
        + interval()
        + "] tracking "
        + table.size()
        + " of at most "
        + table.maxKeys()
        + " keys";
  }
}
