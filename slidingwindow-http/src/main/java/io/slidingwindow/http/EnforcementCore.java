package io.slidingwindow.http;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.LimiterKeys;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
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
  private final Answers answers;
  private final PathFirewall pathFirewall;
  private final RequestClients<Q> clients;
  private final boolean guardsPaths;

  private EnforcementCore(List<RuleEntry<Q>> entries, Builder<Q> b) {
    this.entries = entries;
    this.listener = new ListenerCalls(b.listener);
    this.answers = new Answers(this.listener, b.rateLimitHeaders, b.refusal);
    this.pathFirewall = b.pathFirewall;
    this.clients = new RequestClients<>(b.clientKey);
    this.guardsPaths =
        b.pathFirewall.enabled() && entries.stream().anyMatch(e -> !e.rule().paths().isEmpty());
  }

  /** Returns a builder. */
  public static <Q> Builder<Q> builder() {
    return new Builder<>();
  }

  /**
   * What became of a request: refused with {@link #refusal()} to write, or let through with {@link
   * #headers()} to set on its response (empty if no rule decided it or headers are off).
   *
   * @param refusal the answer to write instead of handling the request; null to let it through
   * @param headers the draft-10 headers to add to the response when let through; unmodifiable
   * @param refused the decision of the rule that refused, with its exact wait; null if let through
   * @param settlement the permits to settle with the answer's status, whether let through or not
   */
  public record Outcome(
      HttpReply refusal, Map<String, String> headers, Decision refused, Settlement settlement) {

    static final Outcome PASS = new Outcome(null, Map.of(), null);

    /** Creates an outcome; {@code headers} is copied, in order; a null settlement is none. */
    public Outcome {
      headers = Collections.unmodifiableMap(new LinkedHashMap<>(headers));
      settlement = settlement == null ? Settlement.none() : settlement;
    }

    /** An outcome with nothing to settle. */
    public Outcome(HttpReply refusal, Map<String, String> headers, Decision refused) {
      this(refusal, headers, refused, Settlement.none());
    }

    /** Whether the request may go on. */
    public boolean allowed() {
      return refusal == null;
    }
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
    return enforce(request, method, paths, report, null);
  }

  /**
   * As {@link #enforce(Object, String, List, Supplier)}, skipping the rules in {@code applied} (by
   * index in {@link #rules()}; null for none) and adding each rule that applies to it, so that a
   * request enforced again after its method or path changed is counted by no rule twice.
   */
  public Outcome enforce(
      Q request, String method, List<String> paths, Supplier<QuotaHeaders> report, BitSet applied) {
    QuotaHeaders headers = null;
    Supplier<String> client = clients.of(request);
    List<Settlement.Pending> pending = new ArrayList<>();
    for (int i = 0; i < entries.size(); i++) {
      RuleEntry<Q> entry = entries.get(i);
      String key = entry.keyOf(i, applied, request, method, paths, listener, client);
      if (key == null) {
        continue;
      }
      long permits = entry.permitsOf(request, listener);
      Decision decision;
      try {
        decision = entry.decide(key, clients.groupOf(client), permits, listener, pending);
      } catch (RuntimeException e) {
        failed(entry, e);
        continue;
      }
      if (headers == null) {
        headers = report.get();
      }
      Outcome refused = answers.apply(entry, key, decision, headers, method, paths, pending);
      if (refused != null) {
        return refused;
      }
    }
    return answers.passed(headers, pending);
  }

  /**
   * As {@link #enforce}, without blocking: each decision goes through {@link
   * KeyedRateLimiter#decideAsync}, and the next rule is applied when it completes. The stage never
   * completes exceptionally for a failing key or limiter (fail-open, as {@link #enforce}); its
   * continuations run on the thread that completed the last decision.
   */
  public CompletionStage<Outcome> enforceAsync(
      Q request, String method, List<String> paths, Supplier<QuotaHeaders> report) {
    return enforceAsync(request, method, paths, report, null);
  }

  /**
   * As {@link #enforceAsync(Object, String, List, Supplier)}, skipping the rules in {@code applied}
   * and adding to it those that apply, as {@link #enforce(Object, String, List, Supplier, BitSet)}.
   */
  public CompletionStage<Outcome> enforceAsync(
      Q request, String method, List<String> paths, Supplier<QuotaHeaders> report, BitSet applied) {
    Supplier<String> client = clients.of(request);
    var pending = new ArrayList<Settlement.Pending>();
    return next(0, request, method, paths, report, new QuotaHeaders[1], client, pending, applied);
  }

  private CompletionStage<Outcome> next(
      int from,
      Q request,
      String method,
      List<String> paths,
      Supplier<QuotaHeaders> report,
      QuotaHeaders[] headers,
      Supplier<String> client,
      List<Settlement.Pending> pending,
      BitSet applied) {
    for (int i = from; i < entries.size(); i++) {
      RuleEntry<Q> entry = entries.get(i);
      String key = entry.keyOf(i, applied, request, method, paths, listener, client);
      if (key == null) {
        continue;
      }
      long permits = entry.permitsOf(request, listener);
      CompletionStage<Decision> decision;
      try {
        decision = entry.decideAsync(key, clients.groupOf(client), permits, listener, pending);
      } catch (RuntimeException e) {
        failed(entry, e);
        continue;
      }
      int following = i + 1;
      return decision
          .handle(
              (answer, error) -> {
                if (error != null || answer == null) {
                  failed(entry, ListenerCalls.asRuntime(error));
                  return null;
                }
                if (headers[0] == null) {
                  headers[0] = report.get();
                }
                return answers.apply(entry, key, answer, headers[0], method, paths, pending);
              })
          .thenCompose(
              refused ->
                  refused != null
                      ? CompletableFuture.completedFuture(refused)
                      : next(
                          following, request, method, paths, report, headers, client, pending,
                          applied));
    }
    return CompletableFuture.completedFuture(answers.passed(headers[0], pending));
  }

  private void failed(RuleEntry<Q> entry, RuntimeException error) {
    listener.error(entry.rule(), error, "its limiter failed; the request was let through");
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
      Set<String> names = new HashSet<>();
      List<RuleEntry<Q>> entries = new ArrayList<>();
      for (int i = 0; i < rules.size(); i++) {
        HttpRule rule = rules.get(i);
        if (!names.add(rule.name())) {
          throw new IllegalArgumentException(
              "rule names must be unique, '" + rule.name() + "' repeats");
        }
        KeyedRateLimiter<String> limiter =
            limiterFactory.create(rule.name(), rule.limits(), rule.countRefusedAttempts());
        if (limiter == null) {
          throw new IllegalArgumentException(
              "limiterFactory returned null for rule '" + rule.name() + "'");
        }
        Settlement.checkRefunds(rule, limiter);
        entries.add(
            new RuleEntry<>(
                rule,
                conditions.get(i),
                keys.get(i),
                costs.get(i),
                limiter,
                QuotaHeaders.policyNames(rule.name(), rule.limits()),
                clientKey != null ? RuleEntry.BY_CLIENT : RuleEntry.BY_GLOBAL_KEY));
      }
      ListenerCalls calls = new ListenerCalls(listener);
      for (HttpRule rule : rules) {
        calls.rule(rule);
      }
      return new EnforcementCore<>(List.copyOf(entries), this);
    }
  }
}
