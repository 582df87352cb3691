package io.slidingwindow.servlet;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.http.HttpReply;
import io.slidingwindow.http.PathFirewall;
import io.slidingwindow.http.QuotaHeaders;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.http.RefusalReplies;
import io.slidingwindow.http.RequestKey;
import io.slidingwindow.http.RequestPaths;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Applies rules to HTTP requests: takes a permit from each matching rule and answers 429 Too Many
 * Requests when one refuses. {@link RateLimitFilter} wraps it as a servlet filter; the Spring Boot
 * starter also drives it from {@code @RateLimit} handler methods.
 *
 * <p>Paths: first the {@link PathFirewall} (strict by default, run only if some rule has path
 * patterns) answers 400 Bad Request with an {@code application/problem+json} body to a request URI
 * that the container and the dispatcher may read differently; nothing is counted, and the listener
 * is told ({@link RateLimitListener#onRejectedPath}). Then a rule's patterns are matched against
 * every reading of the path (the container's, and the raw URI's as a dispatcher reads it, with and
 * without dot segments resolved; see {@link RequestPaths}), so a request that reaches a handler
 * under a rule's paths is counted however its path is spelled.
 *
 * <p>For each request, the rules whose paths and methods match are applied in order, like a chain
 * of filters. A rule whose key resolver returns null is skipped. The limiter keys on {@link
 * KeyResolver#key}'s {@link RequestKey#value()}, which names its source, so that one source's
 * values never meet another's; a key longer than 256 characters is replaced by its SHA-256 digest
 * (which no {@link RequestKey} value can spell), so that long header values cannot inflate memory.
 * The first rule that refuses (and is not in dry-run) ends the request: the rules after it are not
 * charged, and the rules before it have counted the request although it was refused. A refusal is
 * answered with status 429, {@code Retry-After} in whole seconds rounded up, and an {@code
 * application/problem+json} body (RFC 9457) that names no rule, key or limit. A dry-run rule that
 * would refuse is reported to the listener and logged at DEBUG, and the request goes on.
 *
 * <p>{@code Retry-After} is never early for the refusing rule and the enforcing rules before it
 * (those of an enforcer that ran earlier on the same request included): it is the refusing rule's
 * exact wait, raised to a bound on when each earlier rule that this request left without a permit
 * has one again. That bound is the binding limit's {@link Decision#resetAfter()} (when every permit
 * it counts has left), and for a rule with several limits also each other limit's window plus its
 * precision, since another limit may have run out with the same request. The answer can therefore
 * be late, never early. Rules after the refusing one were not consulted and may still refuse the
 * retry.
 *
 * <p>If a key resolver or a limiter throws (a faulty key expression, a backend outage), the error
 * is reported to the listener and logged, and the request goes on unlimited by that rule
 * (fail-open); backends with their own failure policy decide before that.
 *
 * <p>With rate-limit headers on, every response to a request that at least one rule decided (the
 * rule matched, had a key and its limiter answered) carries {@code RateLimit-Policy} (each limit of
 * those rules as {@code "name";q=permits;w=seconds}) and {@code RateLimit} (the binding limit of
 * each such rule as {@code "name";r=remaining;t=seconds}) as in
 * draft-ietf-httpapi-ratelimit-headers-10. {@code t} is the draft's time until more quota is made
 * available, in whole seconds rounded up: for a limit that refused, its exact wait for one permit;
 * for a grant, the time until every permit the limit counts has left, an upper bound. On a refusal
 * an item whose {@code t} would exceed {@code Retry-After} leaves {@code t} out (the parameter is
 * optional), so that no item points past {@code Retry-After}. A rule with one limit names its
 * policy after itself; a rule with several adds the window ({@code product-2s}, {@code
 * product-10s}).
 *
 * <p>The header values and the refusals themselves are assembled by {@link QuotaHeaders} and {@link
 * RefusalReplies}, which know nothing of servlets, so that other server APIs can answer alike; this
 * class only reads the request and writes the resulting {@link HttpReply}.
 *
 * <p>Instances are immutable and thread-safe if the rules' key resolvers, the limiters and the
 * listener are.
 */
public final class RateLimitEnforcer {

  /** Longer keys are replaced by their digest. */
  static final int MAX_KEY_CHARS = 256;

  private static final String REPORT = RateLimitEnforcer.class.getName() + ".report";

  private static final System.Logger LOG = System.getLogger(RateLimitEnforcer.class.getName());

  private final List<Entry> entries;
  private final RateLimitListener listener;
  private final boolean rateLimitHeaders;
  private final PathFirewall pathFirewall;
  private final boolean guardsPaths;

  private RateLimitEnforcer(
      List<Entry> entries, RateLimitListener listener, boolean headers, PathFirewall firewall) {
    this.entries = entries;
    this.listener = listener;
    this.rateLimitHeaders = headers;
    this.pathFirewall = firewall;
    boolean anyPaths = false;
    for (Entry entry : entries) {
      anyPaths |= !entry.rule().paths().isEmpty();
    }
    this.guardsPaths = firewall.enabled() && anyPaths;
  }

  /** Returns a builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** One rule, its limiter and the policy name of each of its limits. */
  private record Entry(
      RateLimitRule rule, KeyedRateLimiter<String> limiter, List<String> policies) {}

  /** The rules, in the order they are applied. */
  public List<RateLimitRule> rules() {
    List<RateLimitRule> rules = new ArrayList<>(entries.size());
    for (Entry entry : entries) {
      rules.add(entry.rule());
    }
    return List.copyOf(rules);
  }

  /**
   * Applies the matching rules to {@code request}.
   *
   * @return true if the request may go on; false if it was refused and the 429 response written
   * @throws IOException if writing the refusal fails
   */
  public boolean enforce(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    String method = request.getMethod();
    if (guardsPaths) {
      Optional<String> refusal = pathFirewall.check(request.getRequestURI());
      if (refusal.isPresent()) {
        LOG.log(Level.DEBUG, "request path refused: {0}", refusal.get());
        notifyRejectedPath(method, request.getRequestURI(), refusal.get());
        write(RefusalReplies.badRequestPath(), response);
        return false;
      }
    }
    List<String> paths = pathsOf(request);
    String path = paths.get(0);
    QuotaHeaders report = null;
    for (Entry entry : entries) {
      RateLimitRule rule = entry.rule();
      if (!matchesAny(rule, method, paths)) {
        continue;
      }
      Decision decision;
      try {
        RequestKey key = rule.keyResolver().key(request);
        if (key == null) {
          continue;
        }
        decision = entry.limiter().decide(boundedKey(key.value()), 1);
      } catch (RuntimeException e) {
        notifyError(rule, e);
        LOG.log(
            Level.WARNING, "rate limit rule '" + rule.name() + "' failed; request let through", e);
        continue;
      }
      if (report == null) {
        report = reportOf(request);
      }
      if (rateLimitHeaders) {
        report.add(rule.limits(), entry.policies(), decision);
      }
      if (decision.allowed()) {
        notifyAllowed(rule, decision);
        if (!rule.dryRun()) {
          report.granted(rule.limits(), decision);
        }
        continue;
      }
      notifyRefused(rule, decision, rule.dryRun());
      if (rule.dryRun()) {
        LOG.log(
            Level.DEBUG,
            "rate limit rule ''{0}'' (dry-run) would refuse {1} {2}; retry after {3} s",
            rule.name(),
            method,
            path,
            QuotaHeaders.retryAfterSecondsOf(decision.retryAfter()));
        continue;
      }
      long retryAfterSeconds = report.retryAfterSeconds(decision.retryAfter());
      write(
          RefusalReplies.tooManyRequests(retryAfterSeconds, report.headers(retryAfterSeconds)),
          response);
      return false;
    }
    if (report != null) {
      report.headers(-1).forEach(response::setHeader);
    }
    return true;
  }

  /**
   * The headers found so far for {@code request}, kept as a request attribute so that the filter's
   * rules and an annotated handler's rule report together.
   */
  private static QuotaHeaders reportOf(HttpServletRequest request) {
    if (request.getAttribute(REPORT) instanceof QuotaHeaders report) {
      return report;
    }
    QuotaHeaders report = new QuotaHeaders();
    request.setAttribute(REPORT, report);
    return report;
  }

  /**
   * Writes {@code reply} onto {@code response}: status, headers, and the body with its type,
   * charset and length.
   *
   * @throws IOException if the body cannot be written
   */
  static void write(HttpReply reply, HttpServletResponse response) throws IOException {
    response.setStatus(reply.status());
    reply.headers().forEach(response::setHeader);
    response.setContentType(reply.contentType());
    response.setCharacterEncoding("UTF-8");
    byte[] body = reply.bodyBytes();
    response.setContentLength(body.length);
    response.getOutputStream().write(body);
  }

  /**
   * {@code key} itself if it has at most {@value #MAX_KEY_CHARS} characters, otherwise a SHA-256
   * digest of it: a client cannot make each tracked key cost kilobytes by sending long header
   * values.
   */
  static String boundedKey(String key) {
    if (key.length() <= MAX_KEY_CHARS) {
      return key;
    }
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
      return "sha256:" + Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every Java platform", e);
    }
  }

  /**
   * Every reading of the request's path within the application that a rule is matched against (see
   * {@link RequestPaths}): the container's (decoded and normalized), then the raw URI's.
   */
  static List<String> pathsOf(HttpServletRequest request) {
    String containerPath;
    try {
      String servletPath = request.getServletPath();
      String pathInfo = request.getPathInfo();
      containerPath = (servletPath == null ? "" : servletPath) + (pathInfo == null ? "" : pathInfo);
    } catch (RuntimeException e) {
      containerPath = null; // a container that will not decode an ambiguous URI
    }
    return RequestPaths.readings(containerPath, request.getRequestURI(), request.getContextPath());
  }

  private static boolean matchesAny(RateLimitRule rule, String method, List<String> paths) {
    for (int i = 0; i < paths.size(); i++) {
      if (rule.matches(method, paths.get(i))) {
        return true;
      }
    }
    return false;
  }

  private void notifyAllowed(RateLimitRule rule, Decision decision) {
    try {
      listener.onAllowed(rule, decision);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "rate limit listener failed", e);
    }
  }

  private void notifyRefused(RateLimitRule rule, Decision decision, boolean dryRun) {
    try {
      listener.onRefused(rule, decision, dryRun);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "rate limit listener failed", e);
    }
  }

  private void notifyRejectedPath(String method, String requestUri, String reason) {
    try {
      listener.onRejectedPath(method, requestUri, reason);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "rate limit listener failed", e);
    }
  }

  private void notifyError(RateLimitRule rule, RuntimeException error) {
    try {
      listener.onError(rule, error);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "rate limit listener failed", e);
    }
  }

  /** Builds a {@link RateLimitEnforcer}. Not thread-safe. */
  public static final class Builder {
    private final List<RateLimitRule> rules = new ArrayList<>();
    private RateLimiterFactory limiterFactory = RateLimiterFactory.inMemory();
    private RateLimitListener listener = RateLimitListener.NONE;
    private boolean rateLimitHeaders;
    private PathFirewall pathFirewall = PathFirewall.strict();

    private Builder() {}

    /**
     * Adds a rule; rules apply in the order added.
     *
     * @throws IllegalArgumentException if {@code rule} is null
     */
    public Builder rule(RateLimitRule rule) {
      if (rule == null) {
        throw new IllegalArgumentException("rule must not be null");
      }
      rules.add(rule);
      return this;
    }

    /**
     * Adds each of {@code rules}.
     *
     * @throws IllegalArgumentException if {@code rules} or one of them is null
     */
    public Builder rules(List<RateLimitRule> rules) {
      if (rules == null) {
        throw new IllegalArgumentException("rules must not be null");
      }
      rules.forEach(this::rule);
      return this;
    }

    /**
     * Sets the backend, {@link RateLimiterFactory#inMemory()} by default.
     *
     * @throws IllegalArgumentException if {@code limiterFactory} is null
     */
    public Builder limiterFactory(RateLimiterFactory limiterFactory) {
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
    public Builder listener(RateLimitListener listener) {
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
    public Builder rateLimitHeaders(boolean rateLimitHeaders) {
      this.rateLimitHeaders = rateLimitHeaders;
      return this;
    }

    /**
     * Sets the firewall that refuses ambiguous request paths with 400 before any rule counts them,
     * {@link PathFirewall#strict()} by default. It runs only if some rule has path patterns: a rule
     * without any applies to every path, however spelled.
     *
     * @throws IllegalArgumentException if {@code pathFirewall} is null
     */
    public Builder pathFirewall(PathFirewall pathFirewall) {
      if (pathFirewall == null) {
        throw new IllegalArgumentException("pathFirewall must not be null");
      }
      this.pathFirewall = pathFirewall;
      return this;
    }

    /**
     * Creates one limiter per rule through the factory and builds the enforcer.
     *
     * @throws IllegalArgumentException if two rules share a name, or the factory rejects a rule
     */
    public RateLimitEnforcer build() {
      Set<String> names = new HashSet<>();
      List<Entry> entries = new ArrayList<>();
      for (RateLimitRule rule : rules) {
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
        entries.add(new Entry(rule, limiter, QuotaHeaders.policyNames(rule.name(), rule.limits())));
      }
      for (RateLimitRule rule : rules) {
        try {
          listener.onRule(rule);
        } catch (RuntimeException e) {
          LOG.log(Level.WARNING, "rate limit listener failed", e);
        }
      }
      return new RateLimitEnforcer(List.copyOf(entries), listener, rateLimitHeaders, pathFirewall);
    }
  }
}
