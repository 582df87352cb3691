package io.slidingwindow;

import io.slidingwindow.internal.WindowSet;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The in-process {@link KeyedRateLimiter}: a concurrent map from key to {@link WindowSet}.
 *
 * <p>Eviction. A key is removed only under its entry's lock and only when its windows are empty,
 * and the entry is marked retired before it leaves the map. A caller that fetched the entry before
 * the removal sees the mark once it holds the lock and looks the key up again, so no grant is ever
 * recorded in an entry that has left the map. Evictions run a few entries at a time whenever a new
 * key is tracked (two per new key, more when the table is full), so the table cannot fill with
 * dead keys, and in full on {@link #cleanUp()}.
 *
 * <p>Bound. {@code size} is reserved before an entry is inserted and released after one is
 * removed, so at most {@code maxKeys} entries are ever in the map.
 */
final class LocalKeyedRateLimiter<K> implements KeyedRateLimiter<K> {

  /** Entries examined for eviction each time a new key is tracked. */
  private static final int SWEEP_PER_NEW_KEY = 2;

  /** Entries examined for eviction before a new key is refused for want of room. */
  private static final int SWEEP_WHEN_FULL = 16;

  private final List<Limit> limits;
  private final long largestGrantable;
  private final boolean countRefused;
  private final Ticker ticker;
  private final long origin;
  private final int maxKeys;
  private final KeyOverflow overflow;
  private final Decision overflowDecision;

  private final ConcurrentHashMap<K, Entry> entries = new ConcurrentHashMap<>();
  private final AtomicInteger size = new AtomicInteger();

  private final ReentrantLock sweepLock = new ReentrantLock();

  /**
   * The latest time of any evicted entry; a new entry starts its clock there. Without it, a caller
   * whose clock read went stale (read before an eviction, locked after it) could record a grant at
   * a time when the evicted entry's permits were still inside the window. Written under sweepLock.
   */
  private volatile long evictedUpTo;

  /** Guarded by sweepLock; continues across calls so that every entry is visited in turn. */
  private Iterator<Map.Entry<K, Entry>> sweep;

  LocalKeyedRateLimiter(
      List<Limit> limits, boolean countRefused, Ticker ticker, int maxKeys, KeyOverflow overflow) {
    this.limits = limits;
    this.largestGrantable = Permits.largestGrantable(limits);
    this.countRefused = countRefused;
    this.ticker = ticker;
    this.maxKeys = maxKeys;
    this.overflow = overflow;
    new WindowSet(limits, countRefused, 0); // fail at build time if a limit cannot fit in memory
    Limit longest = limits.get(0);
    for (Limit limit : limits) {
      if (limit.windowNanos() > longest.windowNanos()) {
        longest = limit;
      }
    }
    this.overflowDecision =
        overflow == KeyOverflow.REFUSE
            ? new Decision(false, 0, longest.window(), longest.window(), longest)
            : new Decision(true, 0, Duration.ZERO, Duration.ZERO, longest);
    this.origin = ticker.read();
  }

  /** One key's windows. Its monitor guards every field. */
  private static final class Entry {
    final WindowSet state;

    /** Left the map; callers holding it must look the key up again. */
    boolean retired;

    /**
     * Not yet used by the caller that created it: empty, yet not to be evicted, or that caller
     * could be evicted forever.
     */
    boolean unused = true;

    Entry(WindowSet state) {
      this.state = state;
    }
  }

  @Override
  public boolean tryAcquire(K key, long permits) {
    checkKey(key);
    Permits.check(permits, largestGrantable);
    long now = ticker.read() - origin;
    for (; ; ) {
      Entry entry = entryFor(key, now);
      if (entry == null) {
        return overflowDecision.allowed();
      }
      synchronized (entry) {
        if (!entry.retired) {
          entry.unused = false;
          return entry.state.tryAcquire(now, permits);
        }
      }
    }
  }

  @Override
  public Decision decide(K key, long permits) {
    checkKey(key);
    Permits.check(permits, largestGrantable);
    long now = ticker.read() - origin;
    for (; ; ) {
      Entry entry = entryFor(key, now);
      if (entry == null) {
        return overflowDecision;
      }
      synchronized (entry) {
        if (!entry.retired) {
          entry.unused = false;
          return entry.state.decide(now, permits);
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
    long now = ticker.read() - origin;
    sweepLock.lock();
    try {
      sweep = null;
      sweepSome(now, Integer.MAX_VALUE);
      sweep = null;
    } finally {
      sweepLock.unlock();
    }
  }

  /** The keys tracked now. */
  int trackedKeys() {
    return size.get();
  }

  /** The entry of {@code key}, tracking it if new; null if the table is full. */
  private Entry entryFor(K key, long now) {
    Entry entry = entries.get(key);
    if (entry != null) {
      return entry;
    }
    if (!reserve()) {
      trySweep(now, SWEEP_WHEN_FULL);
      if (!reserve()) {
        return entries.get(key); // another thread may have tracked it meanwhile
      }
    }
    Entry fresh = new Entry(new WindowSet(limits, countRefused, evictedUpTo));
    Entry existing = entries.putIfAbsent(key, fresh);
    if (existing != null) {
      size.decrementAndGet();
      return existing;
    }
    trySweep(now, SWEEP_PER_NEW_KEY);
    return fresh;
  }

  private boolean reserve() {
    for (int n = size.get(); n < maxKeys; n = size.get()) {
      if (size.compareAndSet(n, n + 1)) {
        return true;
      }
    }
    return false;
  }

  private void trySweep(long now, int budget) {
    if (sweepLock.tryLock()) {
      try {
        sweepSome(now, budget);
      } finally {
        sweepLock.unlock();
      }
    }
  }

  /** Examines up to {@code budget} entries, evicting the empty ones. Holds sweepLock. */
  private void sweepSome(long now, int budget) {
    for (int examined = 0; examined < budget; examined++) {
      if (sweep == null || !sweep.hasNext()) {
        if (examined > 0 && sweep != null) {
          sweep = null;
          return; // one full pass per call at most
        }
        sweep = entries.entrySet().iterator();
        if (!sweep.hasNext()) {
          return;
        }
      }
      Map.Entry<K, Entry> candidate = sweep.next();
      Entry entry = candidate.getValue();
      synchronized (entry) {
        if (!entry.retired && !entry.unused && entry.state.isEmpty(now)) {
          evictedUpTo = Math.max(evictedUpTo, entry.state.latest());
          entry.retired = true;
          entries.remove(candidate.getKey(), entry);
          size.decrementAndGet();
        }
      }
    }
  }

  private static void checkKey(Object key) {
    if (key == null) {
      throw new IllegalArgumentException("key must not be null");
    }
  }

  @Override
  public String toString() {
    return "KeyedRateLimiter" + limits + " tracking " + size.get() + " of at most " + maxKeys + " keys";
  }
}
