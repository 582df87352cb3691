package io.slidingwindow.redis;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Refusals that Redis answered for ids whose window was full, remembered so that the same id is
 * refused locally, without a round trip, until its window can have room again.
 *
 * <p>Why this is safe. When a limit has no permit left, only time frees one: no instance can be
 * granted anything under that limit until its oldest stored run leaves, and grants by other
 * instances can only delay that. So a refusal that the script says will {@code hold} for some time
 * is the answer Redis would give to any request for that id until then, whatever the other
 * instances do. Refusals are not remembered when refused attempts count, since those must be
 * recorded.
 *
 * <p>Bounded: a direct-mapped table of a power-of-two number of slots, each holding at most one
 * immutable entry; an id whose slot is taken by another id simply replaces it. Lookups take one
 * volatile read and no lock. An entry outlives a state that disappears in Redis (a key deleted by
 * hand, a failover that lost writes) by at most its hold, which is at most the longest window plus
 * its precision while the Redis server's clock does not step back.
 */
final class RefusalCache {

  /**
   * One remembered refusal, in the limiter's local microseconds.
   *
   * @param id the id refused
   * @param layout the limit set it was refused under (its plan's, or the default one): a refusal
   *     says nothing about another plan's limits
   * @param untilMicros every request for {@code id} is refused while the local clock is below this
   * @param permits the permits of the refused decide whose figures follow, or 0 when the refusal
   *     came from a tryAcquire and holds no figures
   * @param refMicros the local time the figures below are as of
   * @param retryMicros the retry-after at {@code refMicros}
   * @param resetMicros the reset-after at {@code refMicros}
   * @param binding the index of the binding limit
   */
  record Entry(
      String id,
      Object layout,
      long untilMicros,
      long permits,
      long refMicros,
      long retryMicros,
      long resetMicros,
      int binding) {}

  /** The most slots a cache may have. */
  static final int MAX_SLOTS = 1 << 20;

  private final AtomicReferenceArray<Entry> slots;
  private final int mask;

  /**
   * A cache of {@code slots} slots, rounded up to a power of two; {@code slots} must be positive.
   */
  RefusalCache(int slots) {
    int size = slots <= 1 ? 1 : Integer.highestOneBit(slots - 1) << 1;
    this.slots = new AtomicReferenceArray<>(size);
    this.mask = size - 1;
  }

  /**
   * The entry that still refuses {@code id} under {@code layout} at local time {@code nowMicros},
   * or null.
   */
  Entry find(String id, Object layout, long nowMicros) {
    Entry e = slots.get(slot(id));
    return e != null && nowMicros < e.untilMicros() && e.layout() == layout && e.id().equals(id)
        ? e
        : null;
  }

  /**
   * Forgets the refusal of {@code id}, whose counts were reset or refunded here (a refusal
   * remembered by another instance lasts its hold: it never grants more).
   */
  void forget(String id) {
    int slot = slot(id);
    Entry e = slots.get(slot);
    if (e != null && e.id().equals(id)) {
      slots.compareAndSet(slot, e, null);
    }
  }

  void put(Entry entry) {
    slots.set(slot(entry.id()), entry);
  }

  int size() {
    return slots.length();
  }

  private int slot(String id) {
    int h = id.hashCode();
    return (h ^ (h >>> 16)) & mask;
  }
}
