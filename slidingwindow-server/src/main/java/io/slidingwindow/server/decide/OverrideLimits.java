package io.slidingwindow.server.decide;

import io.slidingwindow.FailurePolicy;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Ticker;
import io.slidingwindow.server.decide.Decisions.BadRequest;
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
 * is refused as INVALID_ARGUMENT. Thread-safe.
 */
final class OverrideLimits {

  private static final class Entry {
    final KeyedRateLimiter<String> limiter;
    final long idleNanos;
    volatile long lastUsed;

    Entry(KeyedRateLimiter<String> limiter, Limit limit, long now) {
      this.limiter = limiter;
      this.idleNanos = limit.windowNanos() + limit.precision().toNanos();
      this.lastUsed = now;
    }
  }

  private final LimiterStore store;
  private final int maxPerDomain;
  private final long maxKeys;
  private final Ticker ticker;
  private final Map<String, Map<Limit, Entry>> domains = new ConcurrentHashMap<>();

  OverrideLimits(LimiterStore store, int maxPerDomain, long maxKeys, Ticker ticker) {
    this.store = store;
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
    long now = ticker.read();
    Map<Limit, Entry> table = domains.computeIfAbsent(domain, d -> new ConcurrentHashMap<>());
    Entry entry = table.get(limit);
    if (entry == null) {
      entry = add(domain, table, limit, policy, now);
    }
    entry.lastUsed = now;
    return entry.limiter;
  }

  private synchronized Entry add(
      String domain, Map<Limit, Entry> table, Limit limit, FailurePolicy policy, long now) {
    Entry entry = table.get(limit);
    if (entry != null) {
      return entry;
    }
    if (table.size() >= maxPerDomain) {
      Iterator<Entry> entries = table.values().iterator();
      while (entries.hasNext() && table.size() >= maxPerDomain) {
        Entry old = entries.next();
        if (now - old.lastUsed > old.idleNanos) {
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
    entry = new Entry(store.create(List.of(limit), policy, maxKeys, null), limit, now);
    table.put(limit, entry);
    return entry;
  }
}
