package io.slidingwindow.internal;

import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongFunction;

/**
 * A bounded concurrent table of per-key window state that evicts keys whose windows are empty; the
 * keyed limiters and keyed counters share it.
 *
 * <p>Design. A key is removed only under its entry's monitor and only when its state is empty, and
 * the entry is marked retired before it leaves the map. A caller that fetched the entry before the
 * removal sees the mark once it holds the monitor (its claim fails) and looks the key up again, so
 * nothing is ever recorded in an entry that has left the map. Evictions run a few entries at a time
 * whenever a new key is tracked (two per new key), so the table cannot fill with dead keys, and in
 * full on {@link #cleanUp}.
 *
 * <p>Full table. A new key that finds no room waits for any sweep in progress and then examines up
 * to 16 more entries, continuing round-robin from where the last sweep stopped; only if that frees
 * no slot is the key refused. The work per request stays bounded under a flood of new keys, at the
 * price that a key can be refused while an empty key it did not reach is still tracked; successive
 * requests reach every entry in turn, and {@link #cleanUp} evicts them all at once.
 *
 * <p>Bound. {@code size} is reserved before an entry is inserted and released after one is removed,
 * so at most {@code maxKeys} entries are ever in the map.
 *
 * <p>Groups. A caller may name the group a new key belongs to (in HTTP, the client address that
 * presents it). A group holds at most {@code maxKeysPerGroup} entries, reserved before the entry is
 * inserted and released after it is removed, as {@code size} is; a key equal to its group is not
 * counted against it. So keys of fewer than {@code maxKeys / (maxKeysPerGroup + 1)} groups can
 * never fill the table: a flood of new keys from a few groups finds no room once its groups are
 * full, and every other group's keys still do. A new key of a full group waits for no sweep; it
 * tries one (if none is in progress) and is refused if that frees nothing of its group.
 *
 * <p>Memory. The per-key state is the entry itself, with the entry's flags and monitor: the table
 * adds to it only the map's node (32 bytes with compressed references) and its slot in the map's
 * array (4 bytes, at the map's load factor 5 to 11 bytes per key), and no wrapper or lock object
 * per key. The round-robin sweep's iterator keeps the array it started on: after the map has grown,
 * its previous array (half the size) stays reachable until the pass ends or {@link #cleanUp}.
 *
 * <p>Use. An owner states what it does with one key's state as an {@link Action} built once, and
 * passes it with the key, the time, one primitive argument and a context to {@link #apply}; the
 * table finds or tracks the key, claims its entry under the entry's monitor (looking the key up
 * again if the entry has just left the map) and runs the action there. {@link #readIfTracked} reads
 * a key without tracking it. A call on a tracked key allocates nothing. Thread-safe.
 *
 * @param <K> the key type
 * @param <S> the per-key state, which is its own entry and is guarded by its monitor
 */
public final class KeyTable<K, S extends KeyTable.State> {

  /**
   * A per-key state, which is also the table's entry for the key: its monitor guards the state and
   * the two flags below, so a tracked key costs one object besides the map's node. Every call of
   * the abstract methods holds that monitor.
   */
  public abstract static class State {

    /** Left the map; callers holding it must look the key up again. */
    private boolean retired;

    /** The group this entry is counted against, or null; released when it leaves the map. */
    private Object group;

    /**
     * Not yet used by the caller that created it: empty, yet not to be evicted, or that caller
     * could be evicted forever.
     */
    private boolean unused = true;

    /** Whether the state holds nothing at time {@code now}. */
    public abstract boolean isEmpty(long now);

    /** The latest time the state has seen. */
    public abstract long latest();
  }

  /**
   * What an owner does with one key's state. One instance serves every call, with the call's
   * figures passed as primitives and anything else in {@code context}, so that no call allocates an
   * action. The result is a {@code long}, never boxed, so the keyed counters' sum and the limiter's
   * yes or no cost nothing; an owner whose answer is an object (the limiter's {@code Decision})
   * puts it in a holder passed as the context, 16 bytes per call. That is the price of one claim
   * loop for every call: a variant that returned objects cost the counters a boxed sum (24 bytes
   * per call, measured with {@code KeyedCallsBenchmark}).
   *
   * @param <S> the per-key state
   * @param <C> what each call passes through, or {@link Void} for nothing
   */
  public interface Action<S, C> {

    /** Runs on the state of a claimed key at time {@code now}, under the entry's monitor. */
    long apply(S state, long now, long argument, C context);

    /** The result when the key is new and the table has no room for it; nothing was tracked. */
    long whenFull(long argument, C context);
  }

  /**
   * What an owner reads of one key's state without tracking the key. A non-capturing lambda or
   * method reference is one shared instance, so a read allocates nothing.
   *
   * @param <S> the per-key state
   */
  @FunctionalInterface
  public interface Reader<S> {

    /** Reads the state of a tracked key at time {@code now}, under the entry's monitor. */
    long read(S state, long now);
  }

  /** Entries examined for eviction each time a new key is tracked. */
  private static final int SWEEP_PER_NEW_KEY = 2;

  /** Entries examined for eviction before a new key is refused for want of room. */
  private static final int SWEEP_WHEN_FULL = 16;

  private final int maxKeys;
  private final int maxKeysPerGroup;
  private final LongFunction<S> newState;
  private final ConcurrentHashMap<K, S> entries = new ConcurrentHashMap<>();

  /** The entries each group holds; a group leaves when it holds none. */
  private final ConcurrentHashMap<Object, Integer> groups = new ConcurrentHashMap<>();

  private final AtomicInteger size = new AtomicInteger();
  private final ReentrantLock sweepLock = new ReentrantLock();

  /**
   * The latest time of any evicted entry; a new entry starts its clock there. Without it, a caller
   * whose clock read went stale (read before an eviction, locked after it) could record at a time
   * when the evicted entry's contents were still inside the window. Written under sweepLock.
   */
  private volatile long evictedUpTo;

  /** Guarded by sweepLock; continues across calls so that every entry is visited in turn. */
  private Iterator<Map.Entry<K, S>> sweep;

  /**
   * A table of at most {@code maxKeys} keys (positive), whose new states come from {@code
   * newState}, given the time their clock starts at (earlier times count as it); no group bound.
   */
  public KeyTable(int maxKeys, LongFunction<S> newState) {
    this(maxKeys, maxKeys, newState);
  }

  /**
   * A table of at most {@code maxKeys} keys, at most {@code maxKeysPerGroup} of them (positive) in
   * one group, besides a key equal to its group.
   */
  public KeyTable(int maxKeys, int maxKeysPerGroup, LongFunction<S> newState) {
    this.maxKeys = maxKeys;
    this.maxKeysPerGroup = maxKeysPerGroup;
    this.newState = newState;
  }

  /**
   * Under the monitor of {@code entry}: whether it is still in the table, in which case it is
   * marked as used and its state may be changed until the monitor is released.
   */
  private static boolean claim(State entry) {
    if (entry.retired) {
      return false;
    }
    entry.unused = false;
    return true;
  }

  /**
   * Runs {@code action} on the state of {@code key} at time {@code now}, tracking the key if new;
   * {@link Action#whenFull} if the key is new and there is no room for it. This is the one place
   * that claims an entry: it looks the key up again if the entry left the table meanwhile.
   */
  public <C> long apply(
      K key, long now, long argument, C context, Action<? super S, ? super C> action) {
    return apply(key, null, now, argument, context, action);
  }

  /**
   * As {@link #apply(Object, long, long, Object, Action)}, a new key being tracked only if {@code
   * group} (null for none) has room for it too.
   */
  public <C> long apply(
      K key,
      Object group,
      long now,
      long argument,
      C context,
      Action<? super S, ? super C> action) {
    for (; ; ) {
      S entry = entryFor(key, group, now);
      if (entry == null) {
        return action.whenFull(argument, context);
      }
      synchronized (entry) {
        if (claim(entry)) {
          return action.apply(entry, now, argument, context);
        }
      }
      // The entry was evicted between the lookup and the monitor: look the key up again.
    }
  }

  /**
   * Reads the state of {@code key} at time {@code now} if the key is tracked, without tracking it;
   * {@code untracked} otherwise.
   */
  public long readIfTracked(K key, long now, Reader<? super S> reader, long untracked) {
    S entry = entries.get(key);
    if (entry == null) {
      return untracked;
    }
    synchronized (entry) {
      // A retired entry was empty when it left; a newer entry, if any, was not yet there when
      // this call looked the key up.
      if (((State) entry).retired) {
        return untracked;
      }
      return reader.read(entry, now);
    }
  }

  /** The entry of {@code key}, tracking it if new; null if the table or its group is full. */
  private S entryFor(K key, Object group, long now) {
    S entry = entries.get(key);
    if (entry != null) {
      return entry;
    }
    Object counted =
        group == null || maxKeysPerGroup >= maxKeys || group.equals(key) ? null : group;
    if (counted != null && !reserveIn(counted)) {
      trySweep(now, SWEEP_WHEN_FULL);
      if (!reserveIn(counted)) {
        return entries.get(key); // another thread may have tracked it meanwhile
      }
    }
    if (!reserve()) {
      // Wait for a sweep in progress: it may be about to release the slot of an evicted entry.
      sweepLock.lock();
      try {
        sweepSome(now, SWEEP_WHEN_FULL);
      } finally {
        sweepLock.unlock();
      }
      if (!reserve()) {
        release(counted);
        return entries.get(key); // another thread may have tracked it meanwhile
      }
    }
    // The state is created inside computeIfAbsent, which excludes a removal of the same key: if an
    // earlier entry of this key was evicted, its time has been published in evictedUpTo before its
    // removal, so the new state starts no earlier than the evicted one ended.
    Object[] created = new Object[1];
    S tracked =
        entries.computeIfAbsent(
            key,
            k -> {
              S fresh = newState.apply(evictedUpTo);
              ((State) fresh).group = counted;
              created[0] = fresh;
              return fresh;
            });
    if (tracked != created[0]) {
      size.decrementAndGet();
      release(counted);
      return tracked;
    }
    trySweep(now, SWEEP_PER_NEW_KEY);
    return tracked;
  }

  /** The keys of {@code group} tracked now, a key equal to its group not counted. */
  public int sizeOf(Object group) {
    Integer held = groups.get(group);
    return held == null ? 0 : held;
  }

  /** The keys tracked now. */
  public int size() {
    return size.get();
  }

  /** The most keys tracked at once. */
  public int maxKeys() {
    return maxKeys;
  }

  /** For example {@code "tracking 3 of at most 100 keys"}. */
  @Override
  public String toString() {
    return "tracking " + size.get() + " of at most " + maxKeys + " keys";
  }

  /** Evicts every entry whose state is empty at {@code now}. */
  public void cleanUp(long now) {
    sweepLock.lock();
    try {
      sweep = null;
      sweepSome(now, Integer.MAX_VALUE);
      sweep = null;
    } finally {
      sweepLock.unlock();
    }
  }

  private boolean reserve() {
    for (int n = size.get(); n < maxKeys; n = size.get()) {
      if (size.compareAndSet(n, n + 1)) {
        return true;
      }
    }
    return false;
  }

  /** Reserves a place in {@code group}; false if it holds its most entries. */
  private boolean reserveIn(Object group) {
    boolean[] reserved = new boolean[1];
    groups.compute(
        group,
        (g, held) -> {
          int n = held == null ? 0 : held;
          reserved[0] = n < maxKeysPerGroup;
          return reserved[0] ? n + 1 : held;
        });
    return reserved[0];
  }

  /** Releases a place of {@code group} (null: nothing to release). */
  private void release(Object group) {
    if (group != null) {
      groups.computeIfPresent(group, (g, held) -> held <= 1 ? null : held - 1);
    }
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

  /**
   * Examines up to {@code budget} entries, and no more than the table holds, evicting the empty
   * ones; continues where the previous sweep stopped and wraps around. Holds sweepLock.
   */
  private void sweepSome(long now, int budget) {
    int limit = Math.min(budget, entries.size());
    for (int examined = 0; examined < limit; examined++) {
      if (sweep == null || !sweep.hasNext()) {
        sweep = entries.entrySet().iterator();
        if (!sweep.hasNext()) {
          return;
        }
      }
      Map.Entry<K, S> candidate = sweep.next();
      S entry = candidate.getValue();
      State flags = entry;
      synchronized (entry) {
        if (!flags.retired && !flags.unused && entry.isEmpty(now)) {
          evictedUpTo = Math.max(evictedUpTo, entry.latest());
          flags.retired = true;
          entries.remove(candidate.getKey(), entry);
          size.decrementAndGet();
          release(flags.group);
        }
      }
    }
  }
}
