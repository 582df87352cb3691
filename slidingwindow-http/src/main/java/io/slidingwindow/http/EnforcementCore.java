package io.slidingwindow.http;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.LimiterKeys;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * The one enforcement of HTTP rules that every server adapter drives (the servlet filter and its
 * {@code @RateLimit} interceptor, the reactive filter): the path firewall, rule matching over the
 * request's path readings, keys, the limiters, the draft-10 headers, dry-run, the listener and the
 * 429 answer. An adapter only reads its request (method, raw path, path readings, keys) and writes
 * the {@link HttpReply} or headers it gets back. Public for the project's adapters; applications
 * configure the servlet {@code RateLimitEnforcer} or the Spring Boot starter instead.
 *
 * <p>For each request, the rules whose paths and methods match, and whose condition holds, are
 * applied in order, like a chain of filters. A condition that throws counts as holding (the rule
 * applies, and the listener's {@code onError} is told), so that a failing condition never exempts a
 * request. The limiter keys on {@link LimiterKeys#bounded} of {@link RequestKey#value()} (which
 * names its source), grouped by the client's key ({@link Builder#clientKey}; see {@link
 * io.slidingwindow.KeyOverflow}). A key function that gives null or throws, and a key the limiter
 * rejects as invalid, count the request under its client's key: the listener's {@code onError} is
 * told and the log says so once per rule. A key the limiter had no room to track is reported to
 * {@code onKeyOverflow} and logged once per rule. A request takes the permits its rule's cost
 * function asks for, but never fewer than {@link HttpRule#cost()} (zero or negative asks take the
 * rule's cost; a cost function that throws takes the rule's cost and tells {@code onError}); a
 * request that asks more permits than a limit holds is refused without asking the limiter, since no
 * wait would grant it, with that limit's window as its wait. The first rule that refuses (and is
 * not in dry-run) ends the request: the rules after it are not charged, and the rules before it
 * have counted the request although it was refused. A refusal is the builder's {@link
 * RefusalReplies.Refusal} ({@link RefusalReplies#tooManyRequests} by default), with the {@code
 * Retry-After} of {@link QuotaHeaders#retryAfterSeconds}. A dry-run rule that would refuse is
 * reported to the listener and logged at DEBUG, and the request goes on. If a limiter fails
 * otherwise (a backend outage that the backend's own failure policy did not answer), or an
 * asynchronous decision fails so, the error is reported to the listener and logged (at WARNING once
 * per rule, then at DEBUG), and the request goes on unlimited by that rule (fail-open).
 *
 * <p>A rule that counts only some statuses ({@link HttpRule#countStatuses()}) reserves instead of
 * deciding ({@link KeyedRateLimiter#reserve(Object, Object, long)}, the same answer), and its
 * reservation goes into the outcome's {@link Outcome#settlement()}, which the adapter settles with
 * the answer's status; {@link Builder#build()} stops on a limiter that cannot give permits back.
 *
 * <p>{@link #enforce} decides synchronously (through {@link KeyedRateLimiter#decide}); {@link
 * #enforceAsync} never blocks (through {@link KeyedRateLimiter#decideAsync}) and applies the rules
 * one after the other, each once the previous one has answered.
 *
 * <p>Instances are immutable and thread-safe if the keys, the limiters and the listener are.
 *
 * @param <Q> the adapter's request type, which the rules' key functions read
 */
public final class EnforcementCore<Q> {

  private static final System.Logger LOG = System.getLogger(EnforcementCore.class.getName());

  private final List<RuleEntry<Q>> entries;
  private final ListenerCalls listener;
  private final PathFirewall pathFirewall;
  private final RuleChain<Q> chain;
  private final boolean guardsPaths;

  private EnforcementCore(List<RuleEntry<Q>> entries, Builder<Q> b) {
    this.entries = entries;
    this.listener = new ListenerCalls(b.listener);
    this.pathFirewall = b.pathFirewall;
    Answers answers = new Answers(listener, b.rateLimitHeaders, b.refusal);
    this.chain = new RuleChain<>(entries, listener, answers, new RequestClients<>(b.clientKey));
    this.guardsPaths =
        b.pathFirewall.enabled() && entries.stream().anyMatch(e -> !e.rule().paths().isEmpty());
  }

  /** Returns a builder. */
  public static <Q> Builder<Q> builder() {
    return new Builder<>();
  }

  /**
   * What became of a request: refused with {@link #refusal()} to write, or let through with {@link
   * #headers()} to set on its response (empty if no rule decided it or headers are off). Made only
   * by a core; equal to an outcome with equal parts.
   */
  public static final class Outcome {

    static final Outcome PASS = passed(Map.of(), null);

    private final HttpReply refusal;
    private final Map<String, String> headers;
    private final Decision refused;
    private final Settlement settlement;

    private Outcome(
        HttpReply refusal, Map<String, String> headers, Decision refused, Settlement settlement) {
      this.refusal = refusal;
      this.headers = Collections.unmodifiableMap(new LinkedHashMap<>(headers));
      this.refused = refused;
      this.settlement = settlement == null ? Settlement.none() : settlement;
    }

    /** A request let through with {@code headers} (copied, in order); a null settlement is none. */
    static Outcome passed(Map<String, String> headers, Settlement settlement) {
      return new Outcome(null, headers, null, settlement);
    }

    /** A request refused by {@code decision} with {@code reply}; a null settlement is none. */
    static Outcome refused(HttpReply reply, Decision decision, Settlement settlement) {
      return new Outcome(reply, Map.of(), decision, settlement);
    }

    /** The answer to write instead of handling the request; null if it was let through. */
    public HttpReply refusal() {
      return refusal;
    }

    /** The draft-10 headers to add to the response when let through, in order; unmodifiable. */
    public Map<String, String> headers() {
      return headers;
    }

    /** The decision of the rule that refused, with its exact wait; null if let through. */
    public Decision refused() {
      return refused;
    }

    /** The permits to settle with the answer's status, whether let through or not; never null. */
    public Settlement settlement() {
      return settlement;
    }

    /** Whether the request may go on. */
    public boolean allowed() {
      return refusal == null;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Outcome other
          && Objects.equals(refusal, other.refusal)
          && headers.equals(other.headers)
          && Objects.equals(refused, other.refused)
          && settlement.equals(other.settlement);
    }

    @Override
    public int hashCode() {
      return Objects.hash(refusal, headers, refused, settlement);
    }

    @Override
    public String toString() {
      return "Outcome[refusal=%s, headers=%s, refused=%s, settlement=%s]"
          .formatted(refusal, headers, refused, settlement);
    }
  }

  /**
   * The rules of one core already applied to a request in its request dispatch, so that a request
   * that passes the core more than once (two filters over the same rules, or {@link #enforce}
   * called beside a filter) is counted by each rule once. Made by {@link #newApplied()}, given to
   * each enforcement of the dispatch, which adds the rules it applies; only the core that made it
   * takes it, since a rule is known by its place in that core.
   *
   * <p>Not thread-safe: the enforcements that share one run one after the other, as those of a
   * request do.
   */
  public static final class Applied {

    private final EnforcementCore<?> core;
    private final BitSet rules = new BitSet();

    private Applied(EnforcementCore<?> core) {
      this.core = core;
    }

    /** The indexes in its core's {@link #rules()} of the rules applied so far; live. */
    BitSet rules() {
      return rules;
    }
  }

  /** A new, empty set of this core's rules applied to a request, for one request dispatch. */
  public Applied newApplied() {
    return new Applied(this);
  }

  /** The rules, in the order they are applied. */
  public List<HttpRule> rules() {
    return entries.stream().map(RuleEntry::rule).toList();
  }

  /**
   * The path firewall's answer to a request, run only if it is enabled and some rule has path
   * patterns (a rule without any applies to every path, however spelled): empty to go on, or a 400
   * answer to write, in which case nothing was counted and the listener was told.
   *
   * @param method the request's method
   * @param rawPath the request target's path as received, not decoded, without the query
   */
  public Optional<HttpReply> checkPath(String method, String rawPath) {
    if (!guardsPaths) {
      return Optional.empty();
    }
    Optional<String> refusal = pathFirewall.check(rawPath);
    if (refusal.isEmpty()) {
      return Optional.empty();
    }
    LOG.log(Level.DEBUG, "request path refused: {0}", refusal.get());
    listener.rejectedPath(method, rawPath, refusal.get());
    return Optional.of(RefusalReplies.badRequestPath());
  }

  /**
   * Applies the matching rules to {@code request}, deciding synchronously; call {@link #checkPath}
   * first.
   *
   * @param request what the rules' key functions read
   * @param method the request's method
   * @param paths every reading of the request's path ({@link RequestPaths#readings})
   * @param report the request's headers so far, created on first use; one per request, shared by
   *     every enforcement of the same request (a filter's rules and a handler's)
   */
  public Outcome enforce(
      Q request, String method, List<String> paths, Supplier<QuotaHeaders> report) {
    return chain.enforce(request, method, paths, report, null);
  }

  /**
   * As {@link #enforce(Object, String, List, Supplier)}, skipping the rules in {@code applied} and
   * adding to it each rule that applies, so that a request enforced again in its dispatch (after
   * its method or path changed, say) is counted by no rule twice.
   *
   * @param applied the rules applied to the request so far, from this core's {@link #newApplied()}
   * @throws IllegalArgumentException if {@code applied} is null or was made by another core
   */
  public Outcome enforce(
      Q request,
      String method,
      List<String> paths,
      Supplier<QuotaHeaders> report,
      Applied applied) {
    return chain.enforce(request, method, paths, report, rulesOf(applied));
  }

  /**
   * As {@link #enforce}, without blocking: each decision goes through {@link
   * KeyedRateLimiter#decideAsync}, and the next rule is applied when it completes. The stage never
   * completes exceptionally for a failing key or limiter (fail-open, as {@link #enforce}); its
   * continuations run on the thread that completed the last decision.
   */
  public CompletionStage<Outcome> enforceAsync(
      Q request, String method, List<String> paths, Supplier<QuotaHeaders> report) {
    return chain.enforceAsync(request, method, paths, report, null);
  }

  /**
   * As {@link #enforceAsync(Object, String, List, Supplier)}, skipping the rules in {@code applied}
   * and adding to it those that apply, as {@link #enforce(Object, String, List, Supplier,
   * Applied)}.
   *
   * @throws IllegalArgumentException if {@code applied} is null or was made by another core
   */
  public CompletionStage<Outcome> enforceAsync(
      Q request,
      String method,
      List<String> paths,
      Supplier<QuotaHeaders> report,
      Applied applied) {
    return chain.enforceAsync(request, method, paths, report, rulesOf(applied));
  }

  private BitSet rulesOf(Applied applied) {
    if (applied == null) {
      throw new IllegalArgumentException(
          "applied must not be null; enforce without it for a request seen once");
    }
    if (applied.core != this) {
      throw new IllegalArgumentException(
          "applied was made by another core (rules are known by their place in their own core);"
              + " give this core's newApplied()");
    }
    return applied.rules;
  }

  /** Builds an {@link EnforcementCore}. Not thread-safe. */
  public static final class Builder<Q> {
    private final List<HttpRule> rules = new ArrayList<>();
    private final List<Function<? super Q, RequestKey>> keys = new ArrayList<>();
    private final List<Predicate<? super Q>> conditions = new ArrayList<>();
    private final List<ToLongFunction<? super Q>> costs = new ArrayList<>();
    private RateLimiterFactory limiterFactory = RateLimiterFactory.inMemory();
    private RateLimitListener listener = RateLimitListener.NONE;
    private boolean rateLimitHeaders;
    private PathFirewall pathFirewall = PathFirewall.strict();
    private RefusalReplies.Refusal refusal = RefusalReplies.Refusal.DEFAULT;
    private Function<? super Q, RequestKey> clientKey;

    private Builder() {}

    /**
     * Sets how to find the key of a request's client (its address: {@link ClientAddresses#key}),
     * read once per request that a rule matches: the group of every rule's key, and the key a
     * request counts under when its rule's key cannot be found. Every server adapter sets it;
     * unset, keys have no group and such requests count under {@link RequestKey#global()}.
     *
     * @throws IllegalArgumentException if {@code clientKey} is null
     */
    public Builder<Q> clientKey(Function<? super Q, RequestKey> clientKey) {
      if (clientKey == null) {
        throw new IllegalArgumentException("clientKey must not be null");
      }
      this.clientKey = clientKey;
      return this;
    }

    /**
     * Adds a rule with the function that finds a request's key for it (null, or a throw, counts the
     * request under its client's key), applied to every request it matches, each taking {@link
     * HttpRule#cost()} permits; rules apply in the order added.
     *
     * @throws IllegalArgumentException if {@code rule} or {@code keys} is null
     */
    public Builder<Q> rule(HttpRule rule, Function<? super Q, RequestKey> keys) {
      if (rule == null || keys == null) {
        throw new IllegalArgumentException(
            "rule and keys must not be null, were " + rule + " and " + keys);
      }
      long cost = rule.cost();
      return rule(rule, keys, request -> true, request -> cost);
    }

    /**
     * Adds a rule with its key function (null, or a throw, counts the request under its client's
     * key), its condition (whether it applies to a request that matches its paths and methods; a
     * condition that throws counts as holding) and its cost function (the permits a request asks
     * for: fewer than {@link HttpRule#cost()} take the rule's cost, more than a limit holds are
     * refused, and one that throws takes the rule's cost); rules apply in the order added.
     *
     * @throws IllegalArgumentException if an argument is null
     */
    public Builder<Q> rule(
        HttpRule rule,
        Function<? super Q, RequestKey> keys,
        Predicate<? super Q> condition,
        ToLongFunction<? super Q> cost) {
      if (rule == null || keys == null || condition == null || cost == null) {
        throw new IllegalArgumentException(
            "rule, keys, condition and cost must not be null, were "
                + Arrays.asList(rule, keys, condition, cost));
      }
      rules.add(rule);
      this.keys.add(keys);
      conditions.add(condition);
      costs.add(cost);
      return this;
    }

    /**
     * Sets how refusals are answered, {@link RefusalReplies.Refusal#DEFAULT} (429, problem
     * document) by default.
     *
     * @throws IllegalArgumentException if {@code refusal} is null
     */
    public Builder<Q> refusal(RefusalReplies.Refusal refusal) {
      if (refusal == null) {
        throw new IllegalArgumentException("refusal must not be null");
      }
      this.refusal = refusal;
      return this;
    }

    /**
     * Sets the backend, {@link RateLimiterFactory#inMemory()} by default.
     *
     * @throws IllegalArgumentException if {@code limiterFactory} is null
     */
    public Builder<Q> limiterFactory(RateLimiterFactory limiterFactory) {
      if (limiterFactory == null) {
        throw new IllegalArgumentException("limiterFactory must not be null");
      }
      this.limiterFactory = limiterFactory;
      return this;
    }

    /**
     * Sets the listener, none by default.
     *
     * @throws IllegalArgumentException if {@code listener} is null
     */
    public Builder<Q> listener(RateLimitListener listener) {
      if (listener == null) {
        throw new IllegalArgumentException("listener must not be null");
      }
      this.listener = listener;
      return this;
    }

    /**
     * Sets whether to send the {@code RateLimit-Policy} and {@code RateLimit} headers; off by
     * default.
     */
    public Builder<Q> rateLimitHeaders(boolean rateLimitHeaders) {
      this.rateLimitHeaders = rateLimitHeaders;
      return this;
    }

    /**
     * Sets the firewall that refuses ambiguous request paths with 400 before any rule counts them,
     * {@link PathFirewall#strict()} by default.
     *
     * @throws IllegalArgumentException if {@code pathFirewall} is null
     */
    public Builder<Q> pathFirewall(PathFirewall pathFirewall) {
      if (pathFirewall == null) {
        throw new IllegalArgumentException("pathFirewall must not be null");
      }
      this.pathFirewall = pathFirewall;
      return this;
    }

    /**
     * Creates one limiter per rule through the factory, tells the listener of each rule, and builds
     * the core.
     *
     * @throws IllegalArgumentException if two rules share a name, the factory rejects a rule, or a
     *     rule counts only some statuses and its limiter cannot give permits back
     */
    public EnforcementCore<Q> build() {
      List<RuleEntry<Q>> entries =
          RuleEntry.of(rules, keys, conditions, costs, limiterFactory, clientKey != null);
      ListenerCalls calls = new ListenerCalls(listener);
      for (HttpRule rule : rules) {
        calls.rule(rule);
      }
      return new EnforcementCore<>(entries, this);
    }
  }
}
