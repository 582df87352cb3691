package io.slidingwindow.dashboard;

import io.slidingwindow.Ticker;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Recent decisions for the dashboard: decisions, refusals and dry-run refusals per second, per
 * domain and per rule, over the last {@value #HISTORY_SECONDS} seconds, and the keys refused most
 * over the last {@value #TOP_WINDOW_SECONDS} seconds. The rate limit service records one decision
 * per descriptor (its domain is Envoy's domain, its key the descriptor's entries); the Spring Boot
 * starter one per rule that decided a request (its domain is the application, its key the request's
 * key).
 *
 * <p>Memory is bounded whatever the traffic: at most {@value #MAX_SERIES} domain series and as many
 * rule series (further ones are added to an {@value #OTHER} series), one ring of {@value
 * #HISTORY_SECONDS} one-second slots, and for the refused keys a ring of {@value
 * #TOP_WINDOW_SECONDS} one-second tables of at most {@value #MAX_KEYS_PER_SECOND} keys each
 * (refusals of further keys in the same second are counted as {@value #OTHER}). Keys are cut to
 * {@value #MAX_KEY_CHARS} characters. A key refused in many seconds but never among the first
 * {@value #MAX_KEYS_PER_SECOND} keys of a second is missed; the counts are otherwise exact.
 *
 * <p>Keys are kept in memory as recorded, but a {@link #snapshot()} never shows them: it shows each
 * as {@link #shownKey(String)} makes it, the name of its source and a short hash, so that the
 * dashboard does not publish issued API keys, user names or addresses. Sources are chosen by
 * clients too: whoever shows them must escape them ({@link DashboardFeed} does).
 *
 * <p>A refusal ({@link Outcome#REFUSED}) counts as a decision, a refusal and a refused key; a
 * dry-run refusal ({@link Outcome#DRY_RUN_REFUSED}: a rule that only reports) as a decision, a
 * dry-run refusal and a refused key. Time comes from the {@link Ticker}; a slot is reused once its
 * second is older than the ring. Thread-safe and lock-free: recording a decision is one to three
 * atomic additions to the current slot plus two map look-ups; a thread that records at the very
 * moment its slot is reused for a new second may lose that one count.
 */
public final class DecisionRecorder {

  /** The seconds of history kept. */
  public static final int HISTORY_SECONDS = 300;

  /** The seconds over which the most refused keys are counted. */
  public static final int TOP_WINDOW_SECONDS = 60;

  /** The most series of each kind (domains, rules); further ones are folded into {@link #OTHER}. */
  public static final int MAX_SERIES = 200;

  /** The most distinct refused keys counted per second. */
  public static final int MAX_KEYS_PER_SECOND = 256;

  /** The longest refused key kept, in characters. */
  public static final int MAX_KEY_CHARS = 200;

  /** The name of the series, or refused key, that collects what exceeds the bounds. */
  public static final String OTHER = "other";

  /** What a rule answered. */
  public enum Outcome {
    /** Granted. */
    ALLOWED,
    /** Refused. */
    REFUSED,
    /** Over a limit of a rule that only reports (dry-run, shadow mode), so granted. */
    DRY_RUN_REFUSED
  }

  private static final int COUNTERS = 3;
  private static final int SLOT_WIDTH = COUNTERS * (MAX_SERIES + 1);

  /** A named series: its index in every slot. */
  private record SeriesId(int index, String domain, String rule) {}

  /**
   * One second of counts: per series (domains, then rules) decisions at {@code 3 * index}, refusals
   * at {@code 3 * index + 1} and dry-run refusals at {@code 3 * index + 2}.
   */
  private static final class Slot {
    final long second;
    final AtomicLongArray domains = new AtomicLongArray(SLOT_WIDTH);
    final AtomicLongArray rules = new AtomicLongArray(SLOT_WIDTH);

    Slot(long second) {
      this.second = second;
    }
  }

  /** One second of refused keys. */
  private static final class KeySlot {
    final long second;
    final ConcurrentHashMap<RefusedKey, LongAdder> counts = new ConcurrentHashMap<>();

    KeySlot(long second) {
      this.second = second;
    }
  }

  /**
   * A refused key.
   *
   * @param domain its domain
   * @param rule the rule that refused it
   * @param key the key as shown ({@link #shownKey(String)} of the key as recorded), or {@value
   *     #OTHER}
   */
  public record RefusedKey(String domain, String rule, String key) {}

  /**
   * A refused key and how often it was refused.
   *
   * @param key what was refused
   * @param refusals its refusals, dry-run ones included, over the last {@value #TOP_WINDOW_SECONDS}
   *     seconds
   */
  public record TopKey(RefusedKey key, long refusals) {}

  /**
   * One series of a snapshot.
   *
   * @param domain its domain, or {@value #OTHER}
   * @param rule the rule's name for a rule series, or null for a domain series
   * @param decisions decisions per second, oldest first, aligned with {@link Snapshot#seconds()}
   * @param refusals refusals per second, aligned likewise
   * @param dryRunRefusals dry-run refusals per second, aligned likewise
   */
  @SuppressWarnings("ArrayRecordComponent") // a fresh copy per snapshot, read once, never compared
  public record Series(
      String domain, String rule, long[] decisions, long[] refusals, long[] dryRunRefusals) {}

  /**
   * What the recorder holds at one moment.
   *
   * @param seconds the seconds covered, as seconds since the epoch, oldest first; the last one is
   *     the current, still counting second
   * @param domains one series per domain that decided something
   * @param rules one series per rule that decided something
   * @param topRefused the most refused keys of the last {@value #TOP_WINDOW_SECONDS} seconds, most
   *     refused first
   */
  @SuppressWarnings("ArrayRecordComponent") // a fresh copy per snapshot, read once, never compared
  public record Snapshot(
      long[] seconds, List<Series> domains, List<Series> rules, List<TopKey> topRefused) {}

  private final Ticker ticker;
  private final long originNanos;
  private final long originEpochSecond;
  private final AtomicReferenceArray<Slot> slots = new AtomicReferenceArray<>(HISTORY_SECONDS);
  private final AtomicReferenceArray<KeySlot> keySlots =
      new AtomicReferenceArray<>(TOP_WINDOW_SECONDS);
  private final ConcurrentHashMap<String, SeriesId> domainIds = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, ConcurrentHashMap<String, SeriesId>> ruleIds =
      new ConcurrentHashMap<>();
  private final AtomicInteger nextDomainIndex = new AtomicInteger(1);
  private final AtomicInteger nextRuleIndex = new AtomicInteger(1);
  private final SeriesId otherDomain = new SeriesId(0, OTHER, null);
  private final SeriesId otherRule = new SeriesId(0, OTHER, OTHER);

  /**
   * Creates a recorder.
   *
   * @param ticker the clock that places decisions in seconds
   * @param epochMillisNow the wall-clock time, in milliseconds since the epoch, at which {@code
   *     ticker} reads its current value; it labels the seconds of {@link #snapshot()}
   */
  public DecisionRecorder(Ticker ticker, long epochMillisNow) {
    if (ticker == null) {
      throw new IllegalArgumentException("ticker must not be null");
    }
    this.ticker = ticker;
    this.originNanos = ticker.read();
    this.originEpochSecond = Math.floorDiv(epochMillisNow, 1000);
  }

  /** Creates a recorder on the system clock. */
  public static DecisionRecorder system() {
    return new DecisionRecorder(Ticker.system(), System.currentTimeMillis());
  }

  /**
   * Records one decision of {@code rule}.
   *
   * @param domain the domain it belongs to
   * @param rule the rule that decided
   * @param outcome what the rule answered
   * @param key what was refused, read only when {@code outcome} is a refusal; cut to {@value
   *     #MAX_KEY_CHARS} characters, and {@value #OTHER} if null
   * @throws IllegalArgumentException if {@code domain}, {@code rule} or {@code outcome} is null
   */
  public void record(String domain, String rule, Outcome outcome, String key) {
    if (domain == null || rule == null || outcome == null) {
      throw new IllegalArgumentException(
          "domain, rule and outcome must not be null, were "
              + domain
              + ", "
              + rule
              + ", "
              + outcome);
    }
    long second = second();
    Slot slot = slot(second);
    SeriesId domainId = domainId(domain);
    SeriesId ruleId = ruleId(domainId, domain, rule);
    slot.domains.getAndIncrement(COUNTERS * domainId.index());
    slot.rules.getAndIncrement(COUNTERS * ruleId.index());
    if (outcome != Outcome.ALLOWED) {
      int counter = outcome == Outcome.REFUSED ? 1 : 2;
      slot.domains.getAndIncrement(COUNTERS * domainId.index() + counter);
      slot.rules.getAndIncrement(COUNTERS * ruleId.index() + counter);
      refusedKey(second, domain, rule, key);
    }
  }

  private long second() {
    return Math.floorDiv(ticker.read() - originNanos, 1_000_000_000L);
  }

  private Slot slot(long second) {
    int index = (int) Math.floorMod(second, (long) HISTORY_SECONDS);
    for (int attempt = 0; attempt < 8; attempt++) {
      Slot slot = slots.get(index);
      if (slot != null && slot.second == second) {
        return slot;
      }
      if (slot != null && slot.second > second) {
        // A newer second took the slot while this thread was late: count in a detached slot.
        return new Slot(second);
      }
      slots.compareAndSet(index, slot, new Slot(second));
    }
    return new Slot(second);
  }

  private SeriesId domainId(String domain) {
    SeriesId id = domainIds.get(domain);
    if (id != null) {
      return id;
    }
    if (nextDomainIndex.get() > MAX_SERIES) {
      return otherDomain;
    }
    return domainIds.computeIfAbsent(domain, d -> newId(nextDomainIndex, d, null, otherDomain));
  }

  @SuppressWarnings("ReferenceEquality") // otherDomain is one instance, the fold-over series
  private SeriesId ruleId(SeriesId domainId, String domain, String rule) {
    if (domainId == otherDomain) {
      return otherRule;
    }
    ConcurrentHashMap<String, SeriesId> rules = ruleIds.get(domain);
    if (rules == null) {
      rules = ruleIds.computeIfAbsent(domain, d -> new ConcurrentHashMap<>());
    }
    SeriesId id = rules.get(rule);
    if (id != null) {
      return id;
    }
    if (nextRuleIndex.get() > MAX_SERIES) {
      return otherRule;
    }
    return rules.computeIfAbsent(rule, r -> newId(nextRuleIndex, domain, r, otherRule));
  }

  private static SeriesId newId(AtomicInteger next, String domain, String rule, SeriesId other) {
    int index = next.getAndUpdate(i -> i <= MAX_SERIES ? i + 1 : i);
    return index <= MAX_SERIES ? new SeriesId(index, domain, rule) : other;
  }

  private void refusedKey(long second, String domain, String rule, String text) {
    KeySlot slot = keySlot(second);
    RefusedKey key = new RefusedKey(domain, rule, text == null ? OTHER : cut(text));
    LongAdder count = slot.counts.get(key);
    if (count == null) {
      if (slot.counts.size() >= MAX_KEYS_PER_SECOND) {
        key = new RefusedKey(domain, rule, OTHER);
      }
      count = slot.counts.computeIfAbsent(key, k -> new LongAdder());
    }
    count.increment();
  }

  private KeySlot keySlot(long second) {
    int index = (int) Math.floorMod(second, (long) TOP_WINDOW_SECONDS);
    for (int attempt = 0; attempt < 8; attempt++) {
      KeySlot slot = keySlots.get(index);
      if (slot != null && slot.second == second) {
        return slot;
      }
      if (slot != null && slot.second > second) {
        return new KeySlot(second);
      }
      keySlots.compareAndSet(index, slot, new KeySlot(second));
    }
    return new KeySlot(second);
  }

  /**
   * How a snapshot shows the key {@code recorded} (cut to {@value #MAX_KEY_CHARS} characters): the
   * name of its source when it has one ({@code ip:}, {@code header:x-api-key:}, {@code principal:},
   * {@code client=}), then {@code #} and 12 hex digits of a hash keyed with a secret drawn once per
   * process. The same key shows the same within a process; the key cannot be read back from it.
   * {@value #OTHER} shows as itself.
   *
   * @throws IllegalArgumentException if {@code recorded} is null
   */
  public static String shownKey(String recorded) {
    if (recorded == null) {
      throw new IllegalArgumentException("recorded must not be null");
    }
    return recorded.equals(OTHER) ? OTHER : ShownKeys.of(cut(recorded));
  }

  /**
   * {@code text} if at most {@value #MAX_KEY_CHARS} characters long, else its first {@value
   * #MAX_KEY_CHARS} - 1 characters and an ellipsis; a surrogate pair is never split.
   */
  public static String cut(String text) {
    if (text.length() <= MAX_KEY_CHARS) {
      return text;
    }
    int end = MAX_KEY_CHARS - 1;
    if (Character.isHighSurrogate(text.charAt(end - 1))) {
      end--;
    }
    return text.substring(0, end) + '…';
  }

  /** The counts of the last {@value #HISTORY_SECONDS} seconds and the 10 most refused keys. */
  public Snapshot snapshot() {
    return snapshot(10);
  }

  /**
   * The counts of the last {@value #HISTORY_SECONDS} seconds and the {@code top} most refused keys.
   *
   * @param top how many refused keys to return, at least 0
   * @throws IllegalArgumentException if {@code top} is negative
   */
  public Snapshot snapshot(int top) {
    if (top < 0) {
      throw new IllegalArgumentException("top must be at least 0, was " + top);
    }
    long now = second();
    long first = now - HISTORY_SECONDS + 1;
    long[] seconds = new long[HISTORY_SECONDS];
    Slot[] ordered = new Slot[HISTORY_SECONDS];
    for (int i = 0; i < HISTORY_SECONDS; i++) {
      long second = first + i;
      seconds[i] = originEpochSecond + second;
      Slot slot = slots.get((int) Math.floorMod(second, (long) HISTORY_SECONDS));
      ordered[i] = slot != null && slot.second == second ? slot : null;
    }
    List<SeriesId> domains = new ArrayList<>(domainIds.values());
    domains.add(otherDomain);
    List<SeriesId> rules = new ArrayList<>();
    ruleIds.values().forEach(m -> rules.addAll(m.values()));
    rules.add(otherRule);
    return new Snapshot(
        seconds,
        series(domains, ordered, true),
        series(rules, ordered, false),
        topRefused(now, top));
  }

  private static List<Series> series(List<SeriesId> ids, Slot[] ordered, boolean domains) {
    List<Series> out = new ArrayList<>();
    for (SeriesId id : ids) {
      long[] decisions = new long[ordered.length];
      long[] refusals = new long[ordered.length];
      long[] dryRunRefusals = new long[ordered.length];
      boolean any = false;
      for (int i = 0; i < ordered.length; i++) {
        if (ordered[i] != null) {
          AtomicLongArray counts = domains ? ordered[i].domains : ordered[i].rules;
          decisions[i] = counts.get(COUNTERS * id.index());
          refusals[i] = counts.get(COUNTERS * id.index() + 1);
          dryRunRefusals[i] = counts.get(COUNTERS * id.index() + 2);
          any |= decisions[i] != 0;
        }
      }
      if (any) {
        out.add(new Series(id.domain(), id.rule(), decisions, refusals, dryRunRefusals));
      }
    }
    out.sort(
        Comparator.comparing(Series::domain).thenComparing(s -> s.rule() == null ? "" : s.rule()));
    return out;
  }

  private List<TopKey> topRefused(long now, int top) {
    Map<RefusedKey, Long> totals = new HashMap<>();
    for (int i = 0; i < TOP_WINDOW_SECONDS; i++) {
      KeySlot slot = keySlots.get(i);
      if (slot != null && slot.second > now - TOP_WINDOW_SECONDS && slot.second <= now) {
        slot.counts.forEach((key, count) -> totals.merge(key, count.sum(), Long::sum));
      }
    }
    List<TopKey> keys = new ArrayList<>(totals.size());
    totals.forEach((key, count) -> keys.add(new TopKey(key, count)));
    keys.sort(
        Comparator.comparingLong(TopKey::refusals)
            .reversed()
            .thenComparing(k -> k.key().domain())
            .thenComparing(k -> k.key().rule())
            .thenComparing(k -> k.key().key()));
    List<TopKey> shown = new ArrayList<>(Math.min(top, keys.size()));
    for (TopKey key : keys.subList(0, Math.min(top, keys.size()))) {
      RefusedKey recorded = key.key();
      shown.add(
          new TopKey(
              new RefusedKey(recorded.domain(), recorded.rule(), shownKey(recorded.key())),
              key.refusals()));
    }
    return List.copyOf(shown);
  }
}
