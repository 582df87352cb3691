package io.slidingwindow.server.decide;

import io.slidingwindow.FailurePolicy;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Ticker;
import io.slidingwindow.server.decide.Decisions.BadRequest;
import io.slidingwindow.server.settings.Option;
import java.lang.System.Logger.Level;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The limiters of the limits that descriptors carry themselves (Envoy's {@code RateLimitOverride}),
 * bounded so that callers cannot crowd out anything else: each domain keeps at most {@code
 * maxPerDomain} distinct limits at once, each tracking at most {@code maxKeys} keys in memory,
 * apart from every configured rule's limiter (whose own key bound they never touch) and from every
 * other domain's. When a domain's table is full, a limit that nobody used for longer than its
 * window plus its precision (so it counts nothing any more) makes room. If none did, then on a
 * shared store only, the least recently used limit with a window longer than {@link
 * #LONG_WINDOW_GRACE}, unused for longer than that grace, makes room, though it may still count
 * something: its counts stay in the store, under the keys its limit has again when it comes back,
 * and without it limits of a day or a year sent once would fill the table for that long. A WARNING
 * says so, at most once per {@link #WARNING_INTERVAL} and domain. In memory a limit's counts live
 * only in its limiter, so it keeps its place for as long as it counts anything: letting it go
 * earlier would let a caller who churns limits reset its count. If no limit can make room, {@link
 * #limiter} throws, with a message that names the bound and the setting that raises it, and a
 * WARNING as often; {@link Decider} answers that descriptor OVER_LIMIT. A limit without a unit is
 * answered the same way, and {@link #unknownUnit} warns of it as often.
 *
 * <p>A limiter is handed out only once its entry is marked used at the time {@link #limiter} read,
 * atomically against eviction; so it stays in the table for its window and precision after that
 * time (on a shared store, at most the grace for a longer window while the table is full), and a
 * grant it counts then is still counted by the next request of its limit. A request that stalls
 * between that time and its decision for longer than that (for Envoy's units, a second or more) may
 * still count in a limiter that has left.
 *
 * <p>A limiter answers store failures by the failure policy its domain has in the configuration the
 * request was decided under: one made under another policy (before a reload) is replaced when its
 * limit is next looked up under the new one. That happens on a shared store only, whose counts live
 * in the store under keys the new limiter shares; in memory nothing fails, so the limiter and its
 * counts stay. Thread-safe; looking up a limit the table holds takes no lock and allocates nothing.
 */
final class OverrideLimits {

  /**
   * How long a limit with a longer window must be unused before it may make room in a full table on
   * a shared store: a minute, so that limits of a second and a minute leave only once they count
   * nothing.
   */
  static final Duration LONG_WINDOW_GRACE = Duration.ofMinutes(1);

  /** The least time between two WARNINGs of one kind about one domain's table. */
  static final Duration WARNING_INTERVAL = Duration.ofMinutes(1);

  private static final System.Logger LOG = System.getLogger(OverrideLimits.class.getName());

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

    /**
     * How long unused before the entry may make room on a shared store though it still counts: at
     * most idle.
     */
    final long yieldNanos;

    private volatile long lastUsed;

    Entry(KeyedRateLimiter<String> limiter, FailurePolicy policy, Limit limit, long now) {
      this.limiter = limiter;
      this.policy = policy;
      this.idleNanos = limit.windowNanos() + limit.precision().toNanos();
      this.yieldNanos =
          limit.windowNanos() > LONG_WINDOW_GRACE.toNanos()
              ? LONG_WINDOW_GRACE.toNanos()
              : idleNanos;
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

    /** How long before {@code now} the entry was last used. */
    long unusedFor(long now) {
      return now - lastUsed;
    }

    /**
     * Evicts the entry if nobody used it for longer than {@code nanos} before {@code now}: true if
     * so, and from then on every {@link #use} fails. A use that comes first wins.
     */
    boolean evictIfUnusedFor(long now, long nanos) {
      long seen = lastUsed;
      return now - seen > nanos && LAST_USED.compareAndSet(this, seen, EVICTED);
    }

    /** Evicts the entry whether used or not: every {@link #use} fails from then on. */
    void evict() {
      lastUsed = EVICTED;
    }
  }

  /** One domain's limits, and when each kind of WARNING about them was last written. */
  private static final class Table {
    final Map<Limit, Entry> entries = new ConcurrentHashMap<>();
    final Throttle evictionWarnings = new Throttle();
    final Throttle refusalWarnings = new Throttle();
    final Throttle unitWarnings = new Throttle();
  }

  /**
   * When a WARNING of one kind about one domain's table was last written: at most one per {@link
   * #WARNING_INTERVAL}.
   */
  private static final class Throttle {
    private volatile boolean written;
    private volatile long writtenAt;

    /** Whether one may be written at {@code now}: none was, or the last was an interval before. */
    boolean due(long now) {
      return !written || now - writtenAt >= WARNING_INTERVAL.toNanos();
    }

    /**
     * Whether one may be written at {@code now}, and if so counts it as written then. Under the
     * lock of the {@link OverrideLimits} that holds it.
     */
    boolean take(long now) {
      if (!due(now)) {
        return false;
      }
      written = true;
      writtenAt = now;
      return true;
    }
  }

  private final LimiterStore store;
  private final boolean policyMatters;
  private final int maxPerDomain;
  private final long maxKeys;
  private final Ticker ticker;
  private final Map<String, Table> domains = new ConcurrentHashMap<>();

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
   * @throws BadRequest if the domain holds its most limits and none can make room ({@link Decider}
   *     answers the descriptor OVER_LIMIT)
   */
  KeyedRateLimiter<String> limiter(String domain, Limit limit, FailurePolicy policy) {
    Table table = domains.computeIfAbsent(domain, d -> new Table());
    while (true) {
      long now = ticker.read();
      Entry entry = table.entries.get(limit);
      if (entry == null || stale(entry, policy)) {
        entry = add(domain, table, limit, policy, now);
      }
      if (entry.use(now)) {
        return entry.limiter;
      }
      // Evicted since the lookup, to make room or for another policy; its evictor takes it out.
      table.entries.remove(limit, entry);
    }
  }

  /**
   * Warns, at most once per {@link #WARNING_INTERVAL} and domain, that a descriptor of {@code
   * domain} carried a limit without a unit, or of unit {@code number} unknown to this build, and
   * was answered OVER_LIMIT. Takes no lock between two warnings.
   */
  void unknownUnit(String domain, int number) {
    Table table = domains.computeIfAbsent(domain, d -> new Table());
    long now = ticker.read();
    if (!table.unitWarnings.due(now)) {
      return;
    }
    synchronized (this) {
      if (!table.unitWarnings.take(now)) {
        return;
      }
    }
    LOG.log(
        Level.WARNING,
        "domain '"
            + domain
            + "': a descriptor carried a limit override (Envoy's RateLimitOverride) "
            + (number == 0
                ? "without a unit"
                : "of unit number " + number + ", which this build does not know")
            + ", which cannot be counted; it was answered OVER_LIMIT (metric outcome"
            + " bad_override; this warning repeats at most once a minute)");
  }

  /**
   * Whether {@code entry} answers store failures by another policy than {@code policy}, the one its
   * domain has now. In memory nothing fails, and a new limiter would lose the counts.
   */
  private boolean stale(Entry entry, FailurePolicy policy) {
    return policyMatters && entry.policy != policy;
  }

  private synchronized Entry add(
      String domain, Table table, Limit limit, FailurePolicy policy, long now) {
    Map<Limit, Entry> entries = table.entries;
    Entry entry = entries.get(limit);
    if (entry != null && !stale(entry, policy)) {
      return entry;
    }
    if (entry != null) {
      // Made under another failure policy, before a reload: a limiter of the current one takes its
      // place. On a shared store the counts live in the store, under the same keys, so they stay.
      entry.evict();
      entries.remove(limit);
    } else if (entries.size() >= maxPerDomain && !makeRoom(domain, table, now)) {
      String message =
          "domain '"
              + domain
              + "' holds "
              + maxPerDomain
              + " distinct descriptor limit overrides in use, the most it keeps (--"
              + Option.MAX_OVERRIDE_LIMITS.optionName()
              + ", "
              + Option.MAX_OVERRIDE_LIMITS.environmentVariable()
              + "); one makes room once unused for its window"
              + (policyMatters
                  ? ", or for " + LONG_WINDOW_GRACE.toSeconds() + " s if that is longer"
                  : ", however long: in memory its counts would go with it");
      if (table.refusalWarnings.take(now)) {
        LOG.log(
            Level.WARNING,
            message
                + "; a descriptor with a new limit was refused: answered OVER_LIMIT (metric"
                + " outcome bad_override; this warning repeats at most once a minute)");
      }
      throw BadRequest.invalid(message);
    }
    entry = new Entry(store.create(List.of(limit), policy, maxKeys, null), policy, limit, now);
    entries.put(limit, entry);
    return entry;
  }

  /**
   * Evicts limits from the full table of {@code domain} until it has room: first, as many as
   * needed, limits that count nothing any more; then, on a shared store only, one at a time, the
   * least recently used of those unused for longer than their {@link Entry#yieldNanos}. False if
   * none can go.
   */
  private boolean makeRoom(String domain, Table table, long now) {
    Map<Limit, Entry> entries = table.entries;
    Iterator<Entry> idle = entries.values().iterator();
    while (idle.hasNext() && entries.size() >= maxPerDomain) {
      Entry entry = idle.next();
      if (entry.evictIfUnusedFor(now, entry.idleNanos)) {
        idle.remove();
      }
    }
    if (!policyMatters) {
      // In memory the counts of a limit that still counts would be lost with it.
      return entries.size() < maxPerDomain;
    }
    while (entries.size() >= maxPerDomain) {
      Map.Entry<Limit, Entry> oldest = null;
      for (Map.Entry<Limit, Entry> candidate : entries.entrySet()) {
        Entry entry = candidate.getValue();
        if (entry.unusedFor(now) > entry.yieldNanos
            && (oldest == null || entry.unusedFor(now) > oldest.getValue().unusedFor(now))) {
          oldest = candidate;
        }
      }
      if (oldest == null) {
        return false;
      }
      Entry entry = oldest.getValue();
      long unused = entry.unusedFor(now);
      if (entry.evictIfUnusedFor(now, entry.yieldNanos)) { // else used meanwhile: look again
        entries.remove(oldest.getKey(), entry);
        warnOfEviction(domain, table, oldest.getKey(), unused, now);
      }
    }
    return true;
  }

  private void warnOfEviction(String domain, Table table, Limit limit, long unused, long now) {
    if (!table.evictionWarnings.take(now)) {
      return;
    }
    LOG.log(
        Level.WARNING,
        "domain '"
            + domain
            + "' holds "
            + maxPerDomain
            + " distinct descriptor limit overrides, the most it keeps (--"
            + Option.MAX_OVERRIDE_LIMITS.optionName()
            + "): the override "
            + limit
            + ", unused for "
            + TimeUnit.NANOSECONDS.toSeconds(unused)
            + " s but within its window, made room for a new one; its counts stay in the store");
  }
}
