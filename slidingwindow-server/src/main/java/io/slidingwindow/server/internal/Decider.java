package io.slidingwindow.server.internal;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Ticker;
import io.slidingwindow.server.ConfigException;
import io.slidingwindow.server.internal.Decisions.BadRequest;
import io.slidingwindow.server.internal.Decisions.Code;
import io.slidingwindow.server.internal.Decisions.Descriptor;
import io.slidingwindow.server.internal.Decisions.Entry;
import io.slidingwindow.server.internal.Decisions.Outcome;
import io.slidingwindow.server.internal.Decisions.ReportedLimit;
import io.slidingwindow.server.internal.Decisions.Status;
import io.slidingwindow.server.internal.Decisions.Verdict;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Decides rate limit requests against the current configuration, with one sliding-window {@link
 * KeyedRateLimiter} per configured rule (in-process or on Redis, as the {@link LimiterFactory}
 * builds them), keyed by domain, rule path and the descriptor's values.
 *
 * <p>Semantics follow envoyproxy/ratelimit: every descriptor selects at most one rule (see {@link
 * RateLimitConfig#match}); a rule whose {@code name} is listed in the {@code replaces} of another
 * rule matched by the same request is skipped; unlimited rules answer OK with remaining {@value
 * #MAX_UINT32}; the request is OVER_LIMIT if any descriptor is, and a rule in shadow mode answers
 * OK where it would refuse. Unlike the fixed windows of that service, a refused request counts
 * nothing, and each rule's guarantee is the sliding one: at most N permits in any interval of the
 * window's length. The descriptors of one request are decided one after another, so a descriptor
 * that was allowed keeps its count even if another refuses the request (as in
 * envoyproxy/ratelimit).
 *
 * <p>{@link #apply} swaps in a new configuration; a rule with the same domain, path, limits and
 * failure mode as before keeps its limiter and so its counts. Thread-safe: decisions and reloads
 * may run at once, and a decision uses one configuration from start to end.
 */
public final class Decider {

  /** Envoy's limit_remaining is a uint32. */
  public static final long MAX_UINT32 = 0xFFFF_FFFFL;

  /** Bounds on a request's size; beyond them the request is refused as INVALID_ARGUMENT. */
  public static final int MAX_DOMAIN_CHARS = 256;

  public static final int MAX_DESCRIPTORS = 64;
  public static final int MAX_ENTRIES = 32;
  public static final int MAX_TEXT_CHARS = 4096;

  /** The most distinct override limits kept at once. */
  static final int MAX_OVERRIDE_LIMITS = 64;

  private record State(RateLimitConfig config, Map<Rule, KeyedRateLimiter<String>> limiters) {}

  private final LimiterFactory factory;
  private final Map<Limit, KeyedRateLimiter<String>> overrideLimiters = new ConcurrentHashMap<>();
  private volatile State state;

  /**
   * Creates a decider over {@code config} with in-process limiters.
   *
   * @param ticker the clock of every limiter
   * @param maxKeysPerRule the most distinct descriptor values each rule tracks at once
   * @throws ConfigException if a rule's limits cannot be built
   */
  public Decider(RateLimitConfig config, Ticker ticker, long maxKeysPerRule)
      throws ConfigException {
    this(config, LimiterFactory.local(ticker, maxKeysPerRule));
  }

  /**
   * Creates a decider over {@code config} whose limiters {@code factory} builds.
   *
   * @throws ConfigException if a rule's limits cannot be built by the factory
   */
  public Decider(RateLimitConfig config, LimiterFactory factory) throws ConfigException {
    this.factory = factory;
    this.state = build(config, Map.of());
  }

  /** The configuration decisions use now. */
  public RateLimitConfig config() {
    return state.config();
  }

  /**
   * Uses {@code config} from now on, keeping the counts of rules it shares with the old one.
   *
   * @throws ConfigException if a rule's limits cannot be built; the old configuration stays
   */
  public synchronized void apply(RateLimitConfig config) throws ConfigException {
    Map<Object, KeyedRateLimiter<String>> old = new HashMap<>();
    state.limiters().forEach((rule, limiter) -> old.put(rule.identity(), limiter));
    state = build(config, old);
  }

  private State build(RateLimitConfig config, Map<Object, KeyedRateLimiter<String>> old)
      throws ConfigException {
    IdentityHashMap<Rule, KeyedRateLimiter<String>> limiters = new IdentityHashMap<>();
    for (Rule rule : config.rules()) {
      if (rule.counts()) {
        KeyedRateLimiter<String> kept = old.get(rule.identity());
        if (kept == null) {
          try {
            kept = factory.create(rule.limits(), rule.failureMode());
          } catch (IllegalArgumentException e) {
            throw new ConfigException(
                rule.source() + ": the limits cannot be counted " + factory + ": " + e.getMessage(),
                e);
          }
        }
        limiters.put(rule, kept);
      }
    }
    return new State(config, limiters);
  }

  /**
   * Decides one request.
   *
   * @param domain the configuration domain
   * @param descriptors the descriptors, each decided
   * @param requestHits the request's hits_addend as an unsigned 32-bit value; 0 means 1
   * @throws BadRequest for an unknown domain (NOT_FOUND) or a malformed request (INVALID_ARGUMENT)
   */
  public Verdict decide(String domain, List<Descriptor> descriptors, long requestHits) {
    State current = state;
    validate(current.config(), domain, descriptors, requestHits);
    int n = descriptors.size();
    Rule[] rules = new Rule[n];
    List<String>[] counted = newListArray(n);
    Set<String> replaced = null;
    for (int i = 0; i < n; i++) {
      Descriptor descriptor = descriptors.get(i);
      if (descriptor.override() != null) {
        rules[i] = overrideRule(descriptor.override());
        counted[i] = values(descriptor.entries());
        continue;
      }
      RateLimitConfig.Match match =
          current.config().match(domain, keys(descriptor.entries()), values(descriptor.entries()));
      if (match != null) {
        rules[i] = match.rule();
        counted[i] = match.values();
        if (!match.rule().replaces().isEmpty()) {
          if (replaced == null) {
            replaced = new HashSet<>();
          }
          replaced.addAll(match.rule().replaces());
        }
      }
    }
    List<Status> statuses = new ArrayList<>(n);
    Code overall = Code.OK;
    for (int i = 0; i < n; i++) {
      Rule rule = rules[i];
      if (rule != null
          && replaced != null
          && !rule.name().isEmpty()
          && replaced.contains(rule.name())) {
        rule = null;
      }
      Descriptor descriptor = descriptors.get(i);
      long hits = descriptor.hits() != null ? descriptor.hits() : requestHits;
      Status status = decideOne(current, domain, rule, descriptor, counted[i], Math.max(1, hits));
      if (status.code() == Code.OVER_LIMIT) {
        overall = Code.OVER_LIMIT;
      }
      statuses.add(status);
    }
    return new Verdict(overall, statuses);
  }

  private Status decideOne(
      State current,
      String domain,
      Rule rule,
      Descriptor descriptor,
      List<String> values,
      long hits) {
    if (rule == null) {
      return new Status(Code.OK, null, 0, null, "", Outcome.UNMATCHED);
    }
    String tag = rule.path();
    if (rule.unlimited()) {
      return new Status(Code.OK, null, MAX_UINT32, null, tag, Outcome.UNLIMITED);
    }
    if (rule.blocked()) {
      ReportedLimit blocked =
          new ReportedLimit(rule.name(), 0, rule.blockedUnit(), rule.blockedUnit().length());
      return refusal(rule, blocked, 0, null, tag);
    }
    KeyedRateLimiter<String> limiter =
        rule.domain() == null
            ? overrideLimiters.get(rule.limits().get(0))
            : current.limiters().get(rule);
    Limit smallest = smallest(rule.limits());
    if (hits > smallest.permits()) {
      // No interval can ever hold these permits; refuse without counting.
      return refusal(rule, report(rule, smallest), 0, null, tag);
    }
    Decision decision =
        limiter.decide(
            key(rule.domain() == null, domain, rule.path(), descriptor.entries(), values), hits);
    ReportedLimit limit = report(rule, decision.limit());
    long remaining = Math.min(decision.remaining(), MAX_UINT32);
    if (decision.allowed()) {
      return new Status(Code.OK, limit, remaining, decision.resetAfter(), tag, Outcome.OK);
    }
    return refusal(rule, limit, remaining, decision.retryAfter(), tag);
  }

  private static Status refusal(
      Rule rule, ReportedLimit limit, long remaining, Duration retryAfter, String tag) {
    if (rule.shadowMode()) {
      return new Status(Code.OK, limit, remaining, retryAfter, tag, Outcome.SHADOW_OVER_LIMIT);
    }
    return new Status(Code.OVER_LIMIT, limit, remaining, retryAfter, tag, Outcome.OVER_LIMIT);
  }

  private static ReportedLimit report(Rule rule, Limit limit) {
    TimeUnitName unit = TimeUnitName.of(limit.window());
    String name = rule.name();
    if (name.isEmpty() && unit == TimeUnitName.UNKNOWN) {
      name = limit.permits() + " per " + limit.window();
    }
    return new ReportedLimit(name, limit.permits(), unit, limit.window());
  }

  private static Limit smallest(List<Limit> limits) {
    Limit smallest = limits.get(0);
    for (Limit limit : limits) {
      if (limit.permits() < smallest.permits()) {
        smallest = limit;
      }
    }
    return smallest;
  }

  private Rule overrideRule(Decisions.LimitOverride override) {
    if (override.unit() == TimeUnitName.UNKNOWN || override.unit() == null) {
      throw new BadRequest(
          BadRequest.Kind.INVALID_ARGUMENT, "descriptor limit override needs a unit, was UNKNOWN");
    }
    if (override.requestsPerUnit() == 0) {
      return new Rule(
          null,
          "override",
          List.of(),
          false,
          true,
          override.unit(),
          false,
          "",
          List.of(),
          "request",
          FailureMode.OPEN);
    }
    Limit limit = Limit.of(override.requestsPerUnit(), override.unit().length());
    if (!overrideLimiters.containsKey(limit)) {
      if (overrideLimiters.size() >= MAX_OVERRIDE_LIMITS) {
        throw new BadRequest(
            BadRequest.Kind.INVALID_ARGUMENT,
            "too many distinct descriptor limit overrides (at most " + MAX_OVERRIDE_LIMITS + ")");
      }
      overrideLimiters.computeIfAbsent(limit, l -> factory.create(List.of(l), FailureMode.OPEN));
    }
    return new Rule(
        null,
        "override",
        List.of(limit),
        false,
        false,
        null,
        false,
        "",
        List.of(),
        "request",
        FailureMode.OPEN);
  }

  /**
   * Keys longer than this many characters are replaced by their SHA-256 (Redis ids are bounded).
   */
  static final int MAX_KEY_CHARS = 300;

  /**
   * The limiter key: a mark of its source ({@code r} a configured rule, {@code o} a request's
   * override, so the two never share a count, also in Redis where both use one key space), then
   * domain, rule path and values, each length-prefixed so no two collide; a key over {@value
   * #MAX_KEY_CHARS} characters is replaced by {@code #} and its SHA-256 in hex.
   */
  static String key(
      boolean override, String domain, String path, List<Entry> entries, List<String> values) {
    StringBuilder key = new StringBuilder(64);
    key.append(override ? 'o' : 'r');
    append(key, domain);
    append(key, path);
    for (int i = 0; i < entries.size(); i++) {
      append(key, entries.get(i).key());
      append(key, values.get(i));
    }
    return key.length() <= MAX_KEY_CHARS ? key.toString() : digest(key.toString());
  }

  private static String digest(String key) {
    try {
      byte[] hash =
          java.security.MessageDigest.getInstance("SHA-256")
              .digest(key.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return "#" + java.util.HexFormat.of().formatHex(hash);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }

  private static void append(StringBuilder key, String part) {
    key.append(part.length()).append(':').append(part);
  }

  private static void validate(
      RateLimitConfig config, String domain, List<Descriptor> descriptors, long requestHits) {
    if (domain == null || domain.isEmpty()) {
      throw invalid("domain must not be empty");
    }
    if (domain.length() > MAX_DOMAIN_CHARS) {
      throw invalid(
          "domain must have at most " + MAX_DOMAIN_CHARS + " characters, had " + domain.length());
    }
    if (!config.hasDomain(domain)) {
      throw new BadRequest(BadRequest.Kind.NOT_FOUND, "unknown domain '" + domain + "'");
    }
    if (descriptors == null || descriptors.isEmpty()) {
      throw invalid("descriptors must not be empty");
    }
    if (descriptors.size() > MAX_DESCRIPTORS) {
      throw invalid("at most " + MAX_DESCRIPTORS + " descriptors, had " + descriptors.size());
    }
    if (requestHits < 0 || requestHits > MAX_UINT32) {
      throw invalid("hits_addend must be from 0 to " + MAX_UINT32 + ", was " + requestHits);
    }
    for (int i = 0; i < descriptors.size(); i++) {
      Descriptor descriptor = descriptors.get(i);
      List<Entry> entries = descriptor.entries();
      if (entries.isEmpty()) {
        throw invalid("descriptor " + i + " has no entries");
      }
      if (entries.size() > MAX_ENTRIES) {
        throw invalid(
            "descriptor " + i + " has " + entries.size() + " entries, at most " + MAX_ENTRIES);
      }
      for (Entry entry : entries) {
        if (entry.key() == null || entry.key().isEmpty()) {
          throw invalid("descriptor " + i + " has an entry with an empty key");
        }
        if (entry.value() == null) {
          throw invalid("descriptor " + i + " entry '" + entry.key() + "' has no value");
        }
        if (entry.key().length() > MAX_TEXT_CHARS || entry.value().length() > MAX_TEXT_CHARS) {
          throw invalid(
              "descriptor "
                  + i
                  + " has an entry key or value longer than "
                  + MAX_TEXT_CHARS
                  + " characters");
        }
      }
      Long hits = descriptor.hits();
      if (hits != null && (hits < 0 || hits > MAX_UINT32)) {
        throw invalid(
            "descriptor "
                + i
                + " hits_addend must be from 0 to "
                + MAX_UINT32
                + ", was "
                + Long.toUnsignedString(hits));
      }
      if (descriptor.override() != null && descriptor.override().requestsPerUnit() > MAX_UINT32) {
        throw invalid("descriptor " + i + " limit override is too large");
      }
    }
  }

  private static BadRequest invalid(String message) {
    return new BadRequest(BadRequest.Kind.INVALID_ARGUMENT, message);
  }

  private static List<String> keys(List<Entry> entries) {
    List<String> keys = new ArrayList<>(entries.size());
    for (Entry entry : entries) {
      keys.add(entry.key());
    }
    return keys;
  }

  private static List<String> values(List<Entry> entries) {
    List<String> values = new ArrayList<>(entries.size());
    for (Entry entry : entries) {
      values.add(entry.value());
    }
    return values;
  }

  @SuppressWarnings("unchecked")
  private static List<String>[] newListArray(int n) {
    return (List<String>[]) new List<?>[n];
  }
}
