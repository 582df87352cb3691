package io.slidingwindow.server.decide;

import io.slidingwindow.FailurePolicy;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Ticker;
import io.slidingwindow.server.decide.Decisions.BadRequest;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The limiters of the limits that descriptors carry themselves (Envoy's {@code RateLimitOverride}),
 * bounded so that callers cannot crowd out anything else: each domain keeps at most {@code
 * maxPerDomain} distinct limits at once, each tracking at most {@code maxKeys} keys in memory,
 * apart from every configured rule's limiter (whose own key bound they never touch) and from every
 * other domain's. When a domain's table is full, a limit that nobody used for longer than its
 * window plus its precision (so it counts nothing any more) makes room; if none did, the descriptor
 * is refused as INVALID_ARGUMENT.
 *
 * <p>A limiter is handed out only once its entry is marked used at the time {@link #limiter} read,
 * atomically against eviction; so it stays in the table for its window and precision after that
 * time, and a grant it counts then is still counted by the next request of its limit. A request
 * that stalls between that time and its decision for longer than the window and precision (for
 * Envoy's units, a second or more) may still count in a limiter that has left.
 *
 * <p>A limiter answers store failures by the failure policy its domain has in the configuration the
 * request was decided under: one made under another policy (before a reload) is replaced when its
 * limit is next looked up under the new one. That happens on a shared store only, whose counts live
 * in the store under keys the new limiter shares; in memory nothing fails, so the limiter and its
 * counts stay. Thread-safe; looking up a limit the table holds takes no lock and allocates nothing.
 */
final class OverrideLimits {

  /**
   * A limit's limiter and when it was last used. Using it and evicting it both claim {@code
   * lastUsed} by compare-and-set, and eviction leaves {@link #EVICTED} there for good: so a request
   * either marks the entry used before an eviction looks at it (which then finds it in use), or
   * sees that it was evicted and looks the limit up again, never counting in a limiter that has
   * left the table.
   */
  private static final class Entry {
    /** What {@code lastUsed} holds once the entry is evicted; no clock reads it. */
    static final long EVICTED = Long.MIN_VALUE;

    private static final VarHandle LAST_USED;

    static {
      try {
        LAST_USED = MethodHandles.lookup().findVarHandle(Entry.class, "lastUsed", long.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    final KeyedRateLimiter<String> limiter;
    final FailurePolicy policy;
    final long idleNanos;
    private volatile long lastUsed;

    Entry(KeyedRateLimiter<String> limiter, FailurePolicy policy, Limit limit, long now) {
      this.limiter = limiter;
      this.policy = policy;
      this.idleNanos = limit.windowNanos() + limit.precision().toNanos();
      this.lastUsed = stamp(now);
    }

    /**
     * {@code now} as {@code lastUsed} holds it: never {@link #EVICTED}, a nanosecond off at most.
     */
    static long stamp(long now) {
      return now == EVICTED ? EVICTED + 1 : now;
    }

    /**
     * Marks the entry used at {@code now} (it keeps a later time another request wrote), unless it
     * was evicted: false then. Lock-free.
     */
    boolean use(long time) {
      long now = stamp(time);
      long seen;
      do {
        seen = lastUsed;
        if (seen == EVICTED) {
          return false;
        }
        if (now - seen <= 0) {
          return true;
        }
      } while (!LAST_USED.compareAndSet(this, seen, now));
      return true;
    }

    /**
     * Evicts the entry if nobody used it for longer than {@link #idleNanos} before {@code now}:
     * true if so, and from then on every {@link #use} fails. A use that comes first wins.
     */
    boolean evictIfIdle(long now) {
      long seen = lastUsed;
      return now - seen > idleNanos && LAST_USED.compareAndSet(this, seen, EVICTED);
    }

    /** Evicts the entry whether used or not: every {@link #use} fails from then on. */
    void evict() {
      lastUsed = EVICTED;
    }
  }

  private final LimiterStore store;
  private final boolean policyMatters;
  private final int maxPerDomain;
  private final long maxKeys;
  private final Ticker ticker;
  private final Map<String, Map<Limit, Entry>> domains = new ConcurrentHashMap<>();

  OverrideLimits(LimiterStore store, int maxPerDomain, long maxKeys, Ticker ticker) {
    this.store = store;
    this.policyMatters = !store.inMemory();
    this.maxPerDomain = maxPerDomain;
    this.maxKeys = maxKeys;
    this.ticker = ticker;
  }

  /**
   * The limiter of {@code limit} in {@code domain}, made if needed.
   *
   * @throws BadRequest if the domain holds its most limits and none is idle
   */
  KeyedRateLimiter<String> limiter(String domain, Limit limit, FailurePolicy policy) {
    Map<Limit, Entry> table = domains.computeIfAbsent(domain, d -> new ConcurrentHashMap<>());
    while (true) {
      long now = ticker.read();
      Entry entry = table.get(limit);
      if (entry == null || stale(entry, policy)) {
        entry = add(domain, table, limit, policy, now);
      }
      if (entry.use(now)) {
        return entry.limiter;
      }
      // Evicted since the lookup, to make room or for another policy; its evictor takes it out.
      table.remove(limit, entry);
    }
  }

  /**
   * Whether {@code entry} answers store failures by another policy than {@code policy}, the one its
   * domain has now. In memory nothing fails, and a new limiter would lose the counts.
   */
  private boolean stale(Entry entry, FailurePolicy policy) {
    return policyMatters && entry.policy != policy;
  }

  private synchronized Entry add(
      String domain, Map<Limit, Entry> table, Limit limit, FailurePolicy policy, long now) {
    Entry entry = table.get(limit);
    if (entry != null && !stale(entry, policy)) {
      return entry;
    }
    if (entry != null) {
      // Made under another failure policy, before a reload: a limiter of the current one takes its
      // place. On a shared store the counts live in the store, under the same keys, so they stay.
      entry.evict();
      table.remove(limit);
    } else if (table.size() >= maxPerDomain) {
      Iterator<Entry> entries = table.values().iterator();
      while (entries.hasNext() && table.size() >= maxPerDomain) {
        if (entries.next().evictIfIdle(now)) {
          entries.remove();
        }
      }
      if (table.size() >= maxPerDomain) {
        throw BadRequest.invalid(
            "domain '"
                + domain
                + "' holds "
                + maxPerDomain
                + " distinct descriptor limit overrides in use, the most it keeps; an override"
                + " unused for its window makes room");
      }
    }
    entry = new Entry(store.create(List.of(limit), policy, maxKeys, null), policy, limit, now);
    table.put(limit, entry);
    return entry;
  }
}
