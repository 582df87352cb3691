package io.slidingwindow.http;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The one enforcement of HTTP rules that every server adapter drives (the servlet filter and its
 * {@code @RateLimit} interceptor, the reactive filter): the path firewall, rule matching over the
 * request's path readings, keys, the limiters, the draft-10 headers, dry-run, the listener and the
 * 429 answer. An adapter only reads its request (method, raw path, path readings, keys) and writes
 * the {@link HttpReply} or headers it gets back. Public for the project's adapters; applications
 * configure the servlet {@code RateLimitEnforcer} or the Spring Boot starter instead.
 *
 * <p>For each request, the rules whose paths and methods match are applied in order, like a chain
 * of filters. A rule whose key is null is skipped. The limiter keys on {@link RequestKey#value()},
 * which names its source; a key longer than {@value #MAX_KEY_CHARS} characters is replaced by its
 * SHA-256 digest (which no {@link RequestKey} value can spell), so that long header values cannot
 * inflate memory. The first rule that refuses (and is not in dry-run) ends the request: the rules
 * after it are not charged, and the rules before it have counted the request although it was
 * refused. A refusal is {@link RefusalReplies#tooManyRequests}, with the {@code Retry-After} of
 * {@link QuotaHeaders#retryAfterSeconds}. A dry-run rule that would refuse is reported to the
 * listener and logged at DEBUG, and the request goes on. If a key or a limiter throws (a faulty key
 * expression, a backend outage), or an asynchronous decision fails, the error is reported to the
 * listener and logged, and the request goes on unlimited by that rule (fail-open).
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

  /** Longer keys are replaced by their digest. */
  public static final int MAX_KEY_CHARS = BoundedKeys.MAX_KEY_CHARS;

  private static final System.Logger LOG = System.getLogger(EnforcementCore.class.getName());

  private final List<Entry<Q>> entries;
  private final RateLimitListener listener;
  private final boolean rateLimitHeaders;
  private final PathFirewall pathFirewall;
  private final boolean guardsPaths;

  private EnforcementCore(
      List<Entry<Q>> entries, RateLimitListener listener, boolean headers, PathFirewall firewall) {
    this.entries = entries;
    this.listener = listener;
    this.rateLimitHeaders = headers;
    this.pathFirewall = firewall;
    boolean anyPaths = false;
    for (Entry<Q> entry : entries) {
      anyPaths |= !entry.rule().paths().isEmpty();
    }
    this.guardsPaths = firewall.enabled() && anyPaths;
  }

  /** Returns a builder. */
  public static <Q> Builder<Q> builder() {
    return new Builder<>();
  }

  /** One rule, its key function, its limiter and the policy name of each of its limits. */
  private record Entry<Q>(
      HttpRule rule,
      Function<? super Q, RequestKey> keys,
      KeyedRateLimiter<String> limiter,
      List<String> policies) {}

  /**
   * What became of a request: refused with {@link #refusal()} to write, or let through with {@link
   * #headers()} to set on its response (empty if no rule decided it or headers are off).
   *
   * @param refusal the answer to write instead of handling the request; null to let it through
   * @param headers the draft-10 headers to add to the response when let through; unmodifiable
   */
  public record Outcome(HttpReply refusal, Map<String, String> headers) {

    private static final Outcome PASS = new Outcome(null, Map.of());

    /** Creates an outcome; {@code headers} is copied, in order. */
    public Outcome {
      headers = Collections.unmodifiableMap(new LinkedHashMap<>(headers));
    }

    /** Whether the request may go on. */
    public boolean allowed() {
      return refusal == null;
    }
  }

  /** The rules, in the order they are applied. */
  public List<HttpRule> rules() {
    List<HttpRule> rules = new ArrayList<>(entries.size());
    for (Entry<Q> entry : entries) {
      rules.add(entry.rule());
    }
    return List.copyOf(rules);
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
    try {
      listener.onRejectedPath(method, rawPath, refusal.get());
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "rate limit listener failed", e);
    }
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
    QuotaHeaders headers = null;
    for (Entry<Q> entry : entries) {
      String key = keyOf(entry, request, method, paths);
      if (key == null) {
        continue;
      }
      Decision decision;
      try {
        decision = entry.limiter().decide(key, 1);
      } catch (RuntimeException e) {
        failed(entry, e);
        continue;
      }
      if (headers == null) {
        headers = report.get();
      }
      HttpReply refusal = apply(entry, key, decision, headers, method, paths);
      if (refusal != null) {
        return new Outcome(refusal, Map.of());
      }
    }
    return headers == null ? Outcome.PASS : new Outcome(null, headers.headers(-1));
  }

  /**
   * As {@link #enforce}, without blocking: each decision goes through {@link
   * KeyedRateLimiter#decideAsync}, and the next rule is applied when it completes. The stage never
   * completes exceptionally for a failing key or limiter (fail-open, as {@link #enforce}); its
   * continuations run on the thread that completed the last decision.
   */
  public CompletionStage<Outcome> enforceAsync(
      Q request, String method, List<String> paths, Supplier<QuotaHeaders> report) {
    return next(0, request, method, paths, report, new QuotaHeaders[1]);
  }

  private CompletionStage<Outcome> next(
      int from,
      Q request,
      String method,
      List<String> paths,
      Supplier<QuotaHeaders> report,
      QuotaHeaders[] headers) {
    for (int i = from; i < entries.size(); i++) {
      Entry<Q> entry = entries.get(i);
      String key = keyOf(entry, request, method, paths);
      if (key == null) {
        continue;
      }
      CompletionStage<Decision> decision;
      try {
        decision = entry.limiter().decideAsync(key, 1);
      } catch (RuntimeException e) {
        failed(entry, e);
        continue;
      }
      int following = i + 1;
      return decision
          .handle(
              (answer, error) -> {
                if (error != null || answer == null) {
                  failed(entry, asRuntime(error));
                  return null;
                }
                if (headers[0] == null) {
                  headers[0] = report.get();
                }
                HttpReply refusal = apply(entry, key, answer, headers[0], method, paths);
                return refusal == null ? null : new Outcome(refusal, Map.of());
              })
          .thenCompose(
              refused ->
                  refused != null
                      ? CompletableFuture.completedFuture(refused)
                      : next(following, request, method, paths, report, headers));
    }
    return CompletableFuture.completedFuture(
        headers[0] == null ? Outcome.PASS : new Outcome(null, headers[0].headers(-1)));
  }

  /** The bounded key of {@code entry} for the request if its rule matches; null to skip it. */
  private String keyOf(Entry<Q> entry, Q request, String method, List<String> paths) {
    if (!matchesAny(entry.rule(), method, paths)) {
      return null;
    }
    try {
      RequestKey key = entry.keys().apply(request);
      return key == null ? null : boundedKey(key.value());
    } catch (RuntimeException e) {
      failed(entry, e);
      return null;
    }
  }

  /**
   * Records {@code decision} of {@code entry}: headers, listener, dry-run. Returns the 429 answer
   * if the rule refuses and enforces, otherwise null.
   */
  private HttpReply apply(
      Entry<Q> entry,
      String key,
      Decision decision,
      QuotaHeaders report,
      String method,
      List<String> paths) {
    HttpRule rule = entry.rule();
    if (rateLimitHeaders) {
      report.add(rule.limits(), entry.policies(), decision);
    }
    if (decision.allowed()) {
      notifyAllowed(rule, decision, key);
      if (!rule.dryRun()) {
        report.granted(rule.limits(), decision);
      }
      return null;
    }
    notifyRefused(rule, decision, rule.dryRun(), key);
    if (rule.dryRun()) {
      LOG.log(
          Level.DEBUG,
          "rate limit rule ''{0}'' (dry-run) would refuse {1} {2}; retry after {3} s",
          rule.name(),
          method,
          paths.get(0),
          QuotaHeaders.retryAfterSecondsOf(decision.retryAfter()));
      return null;
    }
    long retryAfterSeconds = report.retryAfterSeconds(decision.retryAfter());
    return RefusalReplies.tooManyRequests(retryAfterSeconds, report.headers(retryAfterSeconds));
  }

  private void failed(Entry<Q> entry, RuntimeException error) {
    try {
      listener.onError(entry.rule(), error);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "rate limit listener failed", e);
    }
    LOG.log(
        Level.WARNING,
        "rate limit rule '" + entry.rule().name() + "' failed; request let through",
        error);
  }

  private static RuntimeException asRuntime(Throwable error) {
    Throwable cause = error;
    while (cause instanceof CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    if (cause instanceof RuntimeException runtime) {
      return runtime;
    }
    return new IllegalStateException(
        cause == null ? "the limiter answered nothing" : "the limiter failed: " + cause, cause);
  }

  /** {@code key} itself if short enough, else its digest: see {@link BoundedKeys#of}. */
  public static String boundedKey(String key) {
    return BoundedKeys.of(key);
  }

  private static boolean matchesAny(HttpRule rule, String method, List<String> paths) {
    for (int i = 0; i < paths.size(); i++) {
      if (rule.matches(method, paths.get(i))) {
        return true;
      }
    }
    return false;
  }

  private void notifyAllowed(HttpRule rule, Decision decision, String key) {
    try {
      listener.onAllowed(rule, decision, key);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "rate limit listener failed", e);
    }
  }

  private void notifyRefused(HttpRule rule, Decision decision, boolean dryRun, String key) {
    try {
      listener.onRefused(rule, decision, dryRun, key);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "rate limit listener failed", e);
    }
  }

  /** Builds an {@link EnforcementCore}. Not thread-safe. */
  public static final class Builder<Q> {
    private final List<HttpRule> rules = new ArrayList<>();
    private final List<Function<? super Q, RequestKey>> keys = new ArrayList<>();
    private RateLimiterFactory limiterFactory = RateLimiterFactory.inMemory();
    private RateLimitListener listener = RateLimitListener.NONE;
    private boolean rateLimitHeaders;
    private PathFirewall pathFirewall = PathFirewall.strict();

    private Builder() {}

    /**
     * Adds a rule with the function that finds a request's key for it (null to skip the request);
     * rules apply in the order added.
     *
     * @throws IllegalArgumentException if {@code rule} or {@code keys} is null
     */
    public Builder<Q> rule(HttpRule rule, Function<? super Q, RequestKey> keys) {
      if (rule == null || keys == null) {
        throw new IllegalArgumentException(
            "rule and keys must not be null, were " + rule + " and " + keys);
      }
      rules.add(rule);
      this.keys.add(keys);
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
     * @throws IllegalArgumentException if two rules share a name, or the factory rejects a rule
     */
    public EnforcementCore<Q> build() {
      Set<String> names = new HashSet<>();
      List<Entry<Q>> entries = new ArrayList<>();
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
        entries.add(
            new Entry<>(
                rule, keys.get(i), limiter, QuotaHeaders.policyNames(rule.name(), rule.limits())));
      }
      for (HttpRule rule : rules) {
        try {
          listener.onRule(rule);
        } catch (RuntimeException e) {
          LOG.log(Level.WARNING, "rate limit listener failed", e);
        }
      }
      return new EnforcementCore<>(List.copyOf(entries), listener, rateLimitHeaders, pathFirewall);
    }
  }
}
