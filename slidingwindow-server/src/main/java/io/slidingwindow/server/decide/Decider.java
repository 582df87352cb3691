package io.slidingwindow.server.decide;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Plan;
import io.slidingwindow.Ticker;
import io.slidingwindow.server.ConfigException;
import io.slidingwindow.server.config.ConfigWatcher;
import io.slidingwindow.server.config.RateLimitConfig;
import io.slidingwindow.server.config.Rule;
import io.slidingwindow.server.config.TimeUnitName;
import io.slidingwindow.server.decide.Decisions.BadRequest;
import io.slidingwindow.server.decide.Decisions.Code;
import io.slidingwindow.server.decide.Decisions.Outcome;
import io.slidingwindow.server.decide.Decisions.ReportedLimit;
import io.slidingwindow.server.decide.Decisions.Status;
import io.slidingwindow.server.decide.Decisions.Verdict;
import io.slidingwindow.server.settings.Settings;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Decides rate limit requests against the current configuration, with one sliding-window {@link
 * KeyedRateLimiter} per configured rule (in memory or on Redis, as the {@link LimiterStore} builds
 * them), its descriptors counted under {@link LimiterIds}.
 *
 * <p>Semantics follow envoyproxy/ratelimit: every descriptor selects at most one rule (see {@link
 * RateLimitConfig#match}); a rule whose {@code name} is listed in the {@code replaces} of another
 * rule matched by the same request is skipped; unlimited rules answer OK with remaining {@value
 * #MAX_UINT32}; the request is OVER_LIMIT if any descriptor is, and a rule in shadow mode answers
 * OK where it would refuse. Unlike the fixed windows of that service, a refused descriptor counts
 * nothing, and each rule's guarantee is the sliding one: at most N permits in any interval of the
 * window's length. Each descriptor is decided on its own, so one that was allowed keeps its count
 * even if another refuses the request (as in envoyproxy/ratelimit).
 *
 * <p>{@link #decide} answers on the caller's thread, for stores in memory; {@link #decideAsync}
 * never waits: on Redis every descriptor's call is sent at once and the answer completes when the
 * last reply, or the failure policy at the command timeout, arrives. {@link #apply} swaps in a new
 * configuration; a rule with the same domain, {@link Rule#selector()}, limits and failure policy as
 * before keeps its limiter and so its counts. {@link #adminOverrides} gives single descriptors
 * other limits at run time. Thread-safe: a decision uses one configuration from start to end.
 */
public final class Decider implements ConfigWatcher.Listener {

  /** Envoy's limit_remaining and hits_addend are uint32. */
  public static final long MAX_UINT32 = 0xFFFF_FFFFL;

  /** The longest domain, in characters. */
  public static final int MAX_DOMAIN_CHARS = 256;

  /** The most descriptors in one request. */
  public static final int MAX_DESCRIPTORS = 64;

  /** The most entries in one descriptor. */
  public static final int MAX_ENTRIES = 32;

  /** The longest entry key, in characters (values are bounded by the request size only). */
  public static final int MAX_TEXT_CHARS = 4096;

  /**
   * What each rule counts with, by {@link Rule#index()}: its limiter and the admin overrides of its
   * ids (null unless the rule is {@link Rule.Kind#LIMITED}).
   */
  record State(
      RateLimitConfig config,
      List<KeyedRateLimiter<String>> limiters,
      List<AdminOverrides.RulePlans> plans,
      List<String> idPrefixes,
      List<List<ReportedLimit>> reported) {}

  /** A rule's limiter and the plans it asks, kept together across reloads. */
  private record Counting(KeyedRateLimiter<String> limiter, AdminOverrides.RulePlans plans) {}

  private final LimiterStore store;
  private final OverrideLimits overrides;
  private final AdminOverrides admin;
  private final long maxKeysPerRule;
  private volatile State state;

  /**
   * Creates a decider over {@code config}, counting in {@code store}.
   *
   * @throws ConfigException if a rule's limits cannot be counted by the store
   */
  public Decider(
      RateLimitConfig config, LimiterStore store, Settings.Requests requests, Ticker ticker)
      throws ConfigException {
    this.store = store;
    this.maxKeysPerRule = requests.maxKeysPerRule();
    this.overrides =
        requests.limitOverrides()
            ? new OverrideLimits(
                store, requests.maxOverrideLimits(), requests.maxOverrideKeys(), ticker)
            : null;
    this.admin = new AdminOverrides(this, requests.maxAdminOverrides());
    this.state = build(config, Map.of());
  }

  /** The run-time overrides of the admin port. */
  public AdminOverrides adminOverrides() {
    return admin;
  }

  /** The state decisions use now. */
  State state() {
    return state;
  }

  /** The configuration decisions use now. */
  public RateLimitConfig config() {
    return state.config();
  }

  /** Whether {@link #decide} may be called: every limiter answers at once, in this process. */
  public boolean answersAtOnce() {
    return store.inMemory();
  }

  /**
   * Uses {@code config} from now on, keeping the counts of rules it shares with the old one.
   *
   * @throws ConfigException if a rule's limits cannot be built; the old configuration stays
   */
  @Override
  public synchronized void apply(RateLimitConfig config) throws ConfigException {
    State old = state;
    Map<Object, Counting> kept = new HashMap<>();
    for (Rule rule : old.config().rules()) {
      int i = rule.index();
      if (old.limiters().get(i) != null) {
        kept.put(countsOf(rule), new Counting(old.limiters().get(i), old.plans().get(i)));
      }
    }
    State next = build(config, kept);
    admin.index(next);
    state = next;
  }

  @Override
  public void reloaded(boolean success) {}

  /**
   * What a reloaded rule must share with an old one to keep its counts: its {@link Rule#identity()}
   * on a shared store, where the failure policy chooses how a limiter answers the store's failures;
   * in memory, where no store fails, the same without the policy, so that a reload changing only
   * {@code failure_policy} does not start the rules' counts afresh.
   */
  private Object countsOf(Rule rule) {
    return store.inMemory()
        ? List.of(rule.domain(), rule.selector(), rule.limits())
        : rule.identity();
  }

  private State build(RateLimitConfig config, Map<Object, Counting> old) throws ConfigException {
    int n = config.rules().size();
    KeyedRateLimiter<?>[] limiters = new KeyedRateLimiter<?>[n];
    AdminOverrides.RulePlans[] plans = new AdminOverrides.RulePlans[n];
    String[] prefixes = new String[n];
    List<List<ReportedLimit>> reported = new ArrayList<>(n);
    for (Rule rule : config.rules()) {
      int i = rule.index();
      prefixes[i] = LimiterIds.rulePrefix(rule, !store.inMemory());
      if (rule.kind() == Rule.Kind.BLOCKED) {
        reported.add(
            List.of(
                new ReportedLimit(
                    rule.name(), 0, rule.blockedUnit(), rule.blockedUnit().length())));
      } else {
        reported.add(
            rule.limits().stream().map(limit -> Answers.report(rule.name(), limit)).toList());
      }
      if (rule.kind() == Rule.Kind.LIMITED) {
        Counting counting = old.get(countsOf(rule));
        if (counting == null) {
          AdminOverrides.RulePlans resolver = new AdminOverrides.RulePlans();
          try {
            counting =
                new Counting(
                    store.create(rule.limits(), rule.failurePolicy(), maxKeysPerRule, resolver),
                    resolver);
          } catch (IllegalArgumentException e) {
            throw new ConfigException(
                rule.source() + ": the limits cannot be counted " + store + ": " + e.getMessage(),
                e);
          }
        }
        limiters[i] = counting.limiter();
        plans[i] = counting.plans();
      }
    }
    @SuppressWarnings("unchecked")
    List<KeyedRateLimiter<String>> typed = Arrays.asList((KeyedRateLimiter<String>[]) limiters);
    return new State(config, typed, Arrays.asList(plans), List.of(prefixes), reported);
  }

  /**
   * Decides one request on this thread; for stores in memory ({@link #answersAtOnce()}).
   *
   * @throws BadRequest for an unknown domain (NOT_FOUND) or a malformed request (INVALID_ARGUMENT)
   */
  public Verdict decide(DecisionRequest request) {
    State current = state;
    if (request.count() == 1) { // the common case, without arrays (one descriptor replaces none)
      RequestChecks.check(current.config(), request, overrides != null);
      Rule rule =
          isOverride(request, 0) ? null : current.config().match(request.domain(), request, 0);
      return new Verdict(decideNow(current, request, 0, rule, null));
    }
    Planned planned = plan(current, request);
    Rule[] rules = planned.rules;
    Status[] statuses = new Status[rules.length];
    for (int d = 0; d < rules.length; d++) {
      statuses[d] =
          planned.unusable(d)
              ? Answers.badOverride(request, d)
              : decideNow(current, request, d, rules[d], planned.own(d));
    }
    return new Verdict(statuses);
  }

  /** Decides descriptor {@code d}; {@code own} is its own limit's limiter, or null to look up. */
  private Status decideNow(
      State current, DecisionRequest request, int d, Rule rule, KeyedRateLimiter<String> own) {
    Status status = immediate(current, request, d, rule);
    if (status != null) {
      return status;
    }
    KeyedRateLimiter<String> limiter = own != null ? own : limiter(current, request, d, rule);
    if (limiter == null) {
      return Answers.badOverride(request, d);
    }
    Decision decision = limiter.decide(id(current, request, d, rule), hits(request, d));
    return status(current, request, d, rule, decision);
  }

  /**
   * Decides one request without waiting: every descriptor's limiter is asked at once, and the
   * answer completes with the last of them. A Redis failure never fails it: the rule's failure
   * policy answers instead.
   *
   * @throws BadRequest at once, as {@link #decide}
   */
  public CompletionStage<Verdict> decideAsync(DecisionRequest request) {
    State current = state;
    Planned planned = plan(current, request);
    Rule[] rules = planned.rules;
    Status[] statuses = new Status[rules.length];
    Join join = null;
    for (int d = 0; d < rules.length; d++) {
      Status status =
          planned.unusable(d)
              ? Answers.badOverride(request, d)
              : immediate(current, request, d, rules[d]);
      if (status != null) {
        statuses[d] = status;
        continue;
      }
      KeyedRateLimiter<String> own = planned.own(d);
      KeyedRateLimiter<String> limiter = own != null ? own : limiter(current, request, d, rules[d]);
      if (limiter == null) { // as in decideNow: failing the call would pass the request uncounted
        statuses[d] = Answers.badOverride(request, d);
        continue;
      }
      CompletableFuture<Decision> decision =
          limiter
              .decideAsync(id(current, request, d, rules[d]), hits(request, d))
              .toCompletableFuture();
      if (decision.isDone() && !decision.isCompletedExceptionally()) {
        statuses[d] = status(current, request, d, rules[d], decision.join());
        continue;
      }
      if (rules.length == 1) { // one descriptor, the common case: no gathering
        Rule rule = rules[0];
        return decision.thenApply(
            value -> {
              statuses[0] = status(current, request, 0, rule, value);
              return new Verdict(statuses);
            });
      }
      if (join == null) {
        join = new Join(statuses);
      }
      int index = d;
      Rule rule = rules[d];
      join.await(decision, value -> status(current, request, index, rule, value), index);
    }
    return join == null ? CompletableFuture.completedFuture(new Verdict(statuses)) : join.finish();
  }

  /**
   * Validates the request and matches each descriptor: its rule, or null. Every descriptor that
   * carries a limit of its own gets that limit's limiter here, once, before any descriptor is
   * counted; one whose domain holds its most override limits is marked {@link Planned#unusable} and
   * answered OVER_LIMIT, while the request's other descriptors are decided as ever.
   */
  private Planned plan(State current, DecisionRequest request) {
    RequestChecks.check(current.config(), request, overrides != null);
    int n = request.count();
    Rule[] rules = new Rule[n];
    Planned planned = new Planned(rules);
    Set<String> replaced = null;
    for (int d = 0; d < n; d++) {
      if (overrides != null && request.hasOverride(d)) {
        long requests = request.overrideRequests(d);
        if (request.overrideUnit(d) != TimeUnitName.UNKNOWN
            && requests > 0
            && hits(request, d) <= requests) { // else answered without a limiter
          KeyedRateLimiter<String> own = limiter(current, request, d, null);
          if (own == null) {
            planned.markUnusable(d);
          } else {
            planned.own(d, own);
          }
        }
        continue;
      }
      Rule rule = current.config().match(request.domain(), request, d);
      rules[d] = rule;
      if (rule != null && !rule.replaces().isEmpty()) {
        if (replaced == null) {
          replaced = new HashSet<>();
        }
        replaced.addAll(rule.replaces());
      }
    }
    if (replaced != null) {
      for (int d = 0; d < n; d++) {
        if (rules[d] != null && !rules[d].name().isEmpty() && replaced.contains(rules[d].name())) {
          rules[d] = null;
        }
      }
    }
    return planned;
  }

  private boolean isOverride(DecisionRequest request, int d) {
    return overrides != null && request.hasOverride(d);
  }

  /** The answer that needs no limiter, or null. */
  private Status immediate(State current, DecisionRequest request, int d, Rule rule) {
    if (isOverride(request, d)) {
      long requests = request.overrideRequests(d);
      TimeUnitName unit = request.overrideUnit(d);
      if (unit == TimeUnitName.UNKNOWN) {
        overrides.unknownUnit(request.domain(), request.overrideUnitNumber(d));
        return Answers.badOverride(request, d);
      }
      if (requests == 0) {
        ReportedLimit blocked = new ReportedLimit("", 0, unit, unit.length());
        return new Status(
            Code.OVER_LIMIT, blocked, 0, null, null, Decisions.OVERRIDE_TAG, Outcome.OVER_LIMIT);
      }
      if (hits(request, d) > requests) {
        ReportedLimit limit = new ReportedLimit("", requests, unit, unit.length());
        return new Status(
            Code.OVER_LIMIT, limit, 0, null, null, Decisions.OVERRIDE_TAG, Outcome.OVER_LIMIT);
      }
      return null;
    }
    if (rule == null) {
      return new Status(Code.OK, null, 0, null, null, "", Outcome.UNMATCHED);
    }
    return switch (rule.kind()) {
      case UNLIMITED ->
          new Status(Code.OK, null, MAX_UINT32, null, rule, rule.path(), Outcome.UNLIMITED);
      case BLOCKED -> Answers.refusal(rule, current.reported().get(rule.index()).get(0), 0, null);
      case LIMITED -> {
        Plan plan = current.plans().get(rule.index()).planOf(current, request, d, rule);
        List<Limit> limits = plan == null ? rule.limits() : plan.limits();
        int smallest = Answers.smallest(limits);
        if (hits(request, d) > limits.get(smallest).permits()) {
          // No interval can ever hold these permits; refuse without counting.
          ReportedLimit limit =
              plan == null
                  ? current.reported().get(rule.index()).get(smallest)
                  : Answers.report(rule.name(), limits.get(smallest));
          yield Answers.refusal(rule, limit, 0, null);
        }
        yield null;
      }
    };
  }

  /**
   * The limiter of {@code rule}, or of descriptor {@code d}'s own limit when {@code rule} is null:
   * null then if its domain holds its most override limits (which {@link OverrideLimits} logs).
   */
  private KeyedRateLimiter<String> limiter(
      State current, DecisionRequest request, int d, Rule rule) {
    if (rule == null) {
      try {
        return overrides.limiter(
            request.domain(),
            Answers.overrideLimit(request, d),
            current.config().failurePolicy(request.domain()));
      } catch (BadRequest full) {
        return null;
      }
    }
    return current.limiters().get(rule.index());
  }

  private String id(State current, DecisionRequest request, int d, Rule rule) {
    return rule == null
        ? LimiterIds.ofOverride(!store.inMemory(), request, d)
        : LimiterIds.ofRule(current.idPrefixes().get(rule.index()), rule, request, d);
  }

  private Status status(
      State current, DecisionRequest request, int d, Rule rule, Decision decision) {
    ReportedLimit limit;
    if (rule == null) {
      limit = Answers.report("", Answers.overrideLimit(request, d));
    } else {
      int at = rule.limits().indexOf(decision.limit());
      if (at >= 0 || decision.limit() == null) {
        limit = current.reported().get(rule.index()).get(Math.max(0, at));
      } else { // a limit of the descriptor's admin override
        limit = Answers.report(rule.name(), decision.limit());
      }
    }
    long remaining = Math.min(decision.remaining(), MAX_UINT32);
    String tag = rule == null ? Decisions.OVERRIDE_TAG : rule.path();
    if (decision.allowed()) {
      return new Status(Code.OK, limit, remaining, decision.resetAfter(), rule, tag, Outcome.OK);
    }
    if (rule == null) {
      return new Status(
          Code.OVER_LIMIT, limit, remaining, decision.retryAfter(), null, tag, Outcome.OVER_LIMIT);
    }
    return Answers.refusal(rule, limit, remaining, decision.retryAfter());
  }

  /** The permits descriptor {@code d} takes: its own hits_addend, else the request's; 0 means 1. */
  private static long hits(DecisionRequest request, int d) {
    long own = request.hits(d);
    return Math.max(1, own >= 0 ? own : request.hits());
  }
}
