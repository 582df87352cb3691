package io.slidingwindow;

import io.slidingwindow.internal.Checks;
import io.slidingwindow.internal.KeyTable;

/**
 * What the in-process keyed types share: a {@link KeyTable} of per-key states, read at times
 * measured from the ticker's first reading (taken when they are built), and reclaimed by {@link
 * #cleanUp()}.
 *
 * @param <K> the key type
 * @param <S> the state of one key
 */
abstract class LocalKeyed<K, S extends KeyTable.State> {

  final KeyTable<K, S> table;
  private final Ticker ticker;
  private final long origin;

  /** Reads {@code ticker} once, as the origin of every key's buckets. */
  LocalKeyed(KeyTable<K, S> table, Ticker ticker) {
    this.table = table;
    this.ticker = ticker;
    this.origin = ticker.read();
  }

  /**
   * The key stored for {@code key}: {@link LimiterKeys#bounded(String)} of a string, any other key
   * as it is.
   *
   * @throws IllegalArgumentException if {@code key} is null
   */
  @SuppressWarnings("unchecked")
  static <K> K bounded(K key) {
    Checks.requireNonNull(key, "key");
    return key instanceof String text ? (K) LimiterKeys.bounded(text) : key;
  }

  /** Nanoseconds since the origin, read once per operation. */
  final long now() {
    return ticker.read() - origin;
  }

  /** Evicts every key whose state counts nothing now. */
  public final void cleanUp() {
    table.cleanUp(now());
  }

  /** The keys tracked now. */
  final int trackedKeys() {
    return table.size();
  }
}
