package io.slidingwindow.servlet;

import io.slidingwindow.http.EnforcementCore;
import io.slidingwindow.http.EnforcementCore.Applied;
import io.slidingwindow.http.HttpReply;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.PathFirewall;
import io.slidingwindow.http.QuotaHeaders;
import io.slidingwindow.http.RateLimitListener;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.http.RefusalReplies;
import io.slidingwindow.http.RequestKey;
import io.slidingwindow.http.Settlement;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * Applies rules to HTTP requests: takes a permit from each matching rule and answers 429 Too Many
 * Requests when one refuses. {@link RateLimitFilter} wraps it as a servlet filter; the Spring Boot
 * starter also drives it from {@code @RateLimit} handler methods.
 *
 * <p>A rule is an {@link HttpRule} (its name, paths, methods, limits, penalty mode, dry-run and
 * cost) with a {@link KeyResolver} ({@link Builder#rule(HttpRule, KeyResolver)}), keyed by the
 * client's address when it has none; a condition and a cost function may choose the requests it
 * applies to and what each takes ({@link Builder#rule(HttpRule, KeyResolver, Predicate,
 * ToLongFunction)}).
 *
 * <p>Paths: first the {@link PathFirewall} (strict by default, run only if some rule has path
 * patterns) answers 400 Bad Request with an {@code application/problem+json} body to a request URI
 * that the container and the dispatcher may read differently; nothing is counted, and the listener
 * is told ({@link io.slidingwindow.http.RateLimitListener#onRejectedPath}). Then a rule's patterns
 * are matched against every reading of the path (the container's, and the raw URI's as a dispatcher
 * reads it, with and without dot segments resolved; see {@link
 * io.slidingwindow.http.RequestPaths}), so a request that reaches a handler under a rule's paths is
 * counted however its path is spelled.
 *
 * <p>For each request, the rules whose paths and methods match are applied in order, like a chain
 * of filters. The limiter keys on {@link KeyResolver#key}'s {@link RequestKey#value()}, which names
 * its source, so that one source's values never meet another's, as {@link
 * io.slidingwindow.LimiterKeys#bounded} stores it (a key longer than 256 characters is replaced by
 * its SHA-256 digest, which no {@link RequestKey} value can spell, so that long header values
 * cannot inflate memory). A key resolver that returns null or throws does not exempt a request: it
 * is counted under its client's address ({@link Builder#clientIp}), and the log says so once per
 * rule. The client's address is also the group of every key, so that new keys from one client
 * cannot fill a rule's table (see {@link io.slidingwindow.KeyOverflow}). The first rule that
 * refuses (and is not in dry-run) ends the request: the rules after it are not charged, and the
 * rules before it have counted the request although it was refused. A refusal is answered with
 * status 429, {@code Retry-After} in whole seconds rounded up, and an {@code
 * application/problem+json} body (RFC 9457) that names no rule, key or limit. A dry-run rule that
 * would refuse is reported to the listener and logged at DEBUG, and the request goes on.
 *
 * <p>{@code Retry-After} is never early for the refusing rule and the enforcing rules before it
 * (those of an enforcer that ran earlier on the same request included): it is the refusing rule's
 * exact wait, raised to a bound on when each earlier rule that this request left without a permit
 * has one again. That bound is the binding limit's {@link io.slidingwindow.Decision#resetAfter()}
 * (when every permit it counts has left), and for a rule with several limits also each other
 * limit's window plus its precision, since another limit may have run out with the same request.
 * The answer can therefore be late, never early. Rules after the refusing one were not consulted
 * and may still refuse the retry.
 *
 * <p>If a limiter throws (a backend outage), the error is reported to the listener and logged, and
 * the request goes on unlimited by that rule (fail-open); backends with their own failure policy
 * decide before that. A key the limiter rejects as invalid is no outage: the request is counted
 * under its client's address, and never granted by a failure policy.
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
 * <p>The decisions themselves, the header values and the refusals are the work of {@link
 * EnforcementCore}, which knows nothing of servlets and which the reactive filter drives alike;
 * this class only reads the request and writes the resulting {@link HttpReply} or headers.
 *
 * <p>Instances are immutable and thread-safe if the rules' key resolvers, the limiters and the
 * listener are.
 */
public final class RateLimitEnforcer {

  private static final String REPORT = RateLimitEnforcer.class.getName() + ".report";

  private static final String SETTLEMENT = RateLimitEnforcer.class.getName() + ".settlement";

  private final EnforcementCore<HttpServletRequest> core; // null if following
  private final Supplier<RateLimitEnforcer> source; // null unless following

  private RateLimitEnforcer(
      EnforcementCore<HttpServletRequest> core, Supplier<RateLimitEnforcer> source) {
    this.core = core;
    this.source = source;
  }

  /**
   * An enforcer that applies, to each request, the rules of the enforcer {@code enforcers} gives
   * (reloadable rules; it must never give null), kept for the request as {@link
   * RateLimitFilter#RateLimitFilter(Supplier)} keeps it: a filter built on the same {@code
   * enforcers} instance and this enforcer, called by the application, apply the same rules to a
   * request and count it by each once, across reloads. The Spring Boot starter's enforcer bean is
   * one, following the rules its filter applies.
   *
   * @throws IllegalArgumentException if {@code enforcers} is null
   */
  public static RateLimitEnforcer following(Supplier<RateLimitEnforcer> enforcers) {
    if (enforcers == null) {
      throw new IllegalArgumentException("enforcers must not be null");
    }
    return new RateLimitEnforcer(null, enforcers);
  }

  /** Returns a builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** The rules, in the order they are applied (those in service now, if following). */
  public List<HttpRule> rules() {
    return source != null ? source.get().rules() : core.rules();
  }

  /**
   * Applies the matching rules to {@code request}. A rule counts a request once: an enforcer that
   * runs on it again (a second filter over it, the application calling this besides the filter, or
   * a filter registered for forward, include, error or async dispatches, which are part of the
   * client's request) applies only the rules that apply to the request now and did not before, say
   * after its path was rewritten or forwarded, and its path firewall looks only the first time. The
   * error dispatch of a request that an enforcer refused (429, or 400 for its path), for the
   * refusal's status, is counted by no rule, so that the error page shown for the refusal goes on
   * uncounted; any other later dispatch (an async dispatch an application filter started before the
   * refusal) is counted as usual, and so is the error page of a handler that such a dispatch ran.
   *
   * @return true if the request may go on; false if it was refused and the 429 response written
   * @throws IOException if writing the refusal fails
   */
  public boolean enforce(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    if (source != null) {
      return Pins.enforcerFor(source, request).enforce(request, response);
    }
    if (Look.isErrorPageOfRefusal(request)) {
      return true; // the error page of a refusal: the client's request is counted no more
    }
    Applied earlier = Look.appliedOf(this, request);
    Applied applied = earlier != null ? earlier : core.newApplied();
    boolean allowed = enforceAgain(request, response, applied, earlier == null);
    Look.keep(this, request, request.getMethod(), applied);
    if (allowed) {
      Look.handled(request);
    }
    return allowed;
  }

  /**
   * Enforces once more, where the request's handler is about to run, the rules of every enforcer
   * that let {@code request} through before (the rate limit filter) and that apply to it now but
   * did not then, because a filter after that enforcer changed the request's method or path (a
   * method override, a wrapper rewriting the path). A rule already applied to the request is never
   * applied again, and a request whose method and path are unchanged costs nothing. Refusals,
   * headers, dry-run, the listener and settling are as in {@link #enforce}; the path firewall is
   * not applied again. Only a request dispatch is looked at: forward, include, error and async
   * dispatches go on untouched. Called by the {@code RateLimit} interceptor of Spring MVC before
   * every handler.
   *
   * @return true if the request may go on; false if it was refused and the answer written
   * @throws IOException if writing the refusal fails
   */
  public static boolean recheck(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    return Look.recheck(request, response);
  }

  /**
   * Applies the rules that are not in {@code applied} and apply now, adding them to it; checks the
   * raw path with the firewall first if {@code firewall} (not when looking again at a path that a
   * filter of the application rewrote: the client's spelling passed already, and every reading of
   * the new path is matched).
   */
  boolean enforceAgain(
      HttpServletRequest request, HttpServletResponse response, Applied applied, boolean firewall)
      throws IOException {
    String method = request.getMethod();
    Optional<HttpReply> badPath =
        firewall ? core.checkPath(method, request.getRequestURI()) : Optional.empty();
    if (badPath.isPresent()) {
      refuse(badPath.get(), request, response);
      return false;
    }
    EnforcementCore.Outcome outcome =
        core.enforce(request, method, Look.pathsOf(request), () -> reportOf(request), applied);
    Settlement settlement = outcome.settlement();
    if (request.getAttribute(SETTLEMENT) instanceof Settlement earlier) {
      settlement = earlier.and(settlement);
    }
    if (!settlement.isEmpty()) {
      request.setAttribute(SETTLEMENT, settlement);
    }
    if (!outcome.allowed()) {
      refuse(outcome.refusal(), request, response);
      settle(request, response, null);
      return false;
    }
    outcome.headers().forEach(response::setHeader);
    return true;
  }

  /**
   * Settles the permits that rules counting only some statuses ({@link HttpRule#countStatuses()})
   * reserved for {@code request}, by every enforcer that ran on it, with the answer's status: now
   * if the answer is written, or when the asynchronous processing the request started completes,
   * with the status then. An exception that escaped the handling while the answer was still open
   * counts as status 500; once the answer was committed, the status sent counts. A call in an
   * include dispatch, or a forward one inside a {@link RateLimitFilter}, does nothing: the dispatch
   * around it settles with the final status (say 500 after an include answered 200). Called by
   * {@link RateLimitFilter} after the chain and by the {@code @RateLimit} interceptor after the
   * handler; an application that calls {@link #enforce} itself calls this once its answer is
   * written. A request never settled keeps its permits counted. Only the first call for a request
   * acts; it throws nothing but an {@link Error} a backend threw, once every rule's refund was
   * asked for.
   *
   * @param failure what escaped the handling, or null
   */
  public static void settle(
      HttpServletRequest request, HttpServletResponse response, Throwable failure) {
    if (Look.defersSettling(request)
        || !(request.getAttribute(SETTLEMENT) instanceof Settlement settlement)) {
      return;
    }
    request.removeAttribute(SETTLEMENT);
    if (failure == null && request.isAsyncStarted()) {
      request.getAsyncContext().addListener(new SettleOnCompletion(settlement, response));
      return;
    }
    settlement.settle(failure != null && !response.isCommitted() ? 500 : response.getStatus());
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
   * Marks {@code request} as refused and writes {@code reply} onto {@code response}: status,
   * headers, and the body with its type, charset and length.
   *
   * @throws IOException if the body cannot be written
   */
  private static void refuse(
      HttpReply reply, HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    Look.refused(request, reply.status());
    response.setStatus(reply.status());
    reply.headers().forEach(response::setHeader);
    response.setContentType(reply.contentType());
    response.setCharacterEncoding("UTF-8");
    byte[] body = reply.bodyBytes();
    response.setContentLength(body.length);
    response.getOutputStream().write(body);
  }

  /** Builds a {@link RateLimitEnforcer}. Not thread-safe. */
  public static final class Builder {
    /** A rule with what it reads of a request; a null key resolver keys by the client address. */
    private record Entry(
        HttpRule rule,
        KeyResolver keys,
        Predicate<? super HttpServletRequest> condition,
        ToLongFunction<? super HttpServletRequest> cost) {}

    private final List<Entry> rules = new ArrayList<>();
    // Checks each setting at once; build() copies them into a fresh core builder.
    private final EnforcementCore.Builder<HttpServletRequest> checks = EnforcementCore.builder();
    private RateLimiterFactory limiterFactory = RateLimiterFactory.inMemory();
    private RateLimitListener listener = RateLimitListener.NONE;
    private boolean rateLimitHeaders;
    private PathFirewall pathFirewall = PathFirewall.strict();
    private RefusalReplies.Refusal refusal = RefusalReplies.Refusal.DEFAULT;
    private ClientIpResolver clientIp = ClientIpResolver.direct();

    private Builder() {}

    /**
     * Sets how the client's address is found ({@link ClientIpResolver#direct()}, the connection's
     * peer, by default): the key of a rule added without a key resolver, the key a request counts
     * under when its rule's key resolver returns null or throws, and the group of every key.
     *
     * @throws IllegalArgumentException if {@code clientIp} is null
     */
    public Builder clientIp(ClientIpResolver clientIp) {
      if (clientIp == null) {
        throw new IllegalArgumentException("clientIp must not be null");
      }
      this.clientIp = clientIp;
      return this;
    }

    /**
     * Adds a rule keyed by the client's address (see {@link #clientIp}); rules apply in the order
     * added.
     *
     * @throws IllegalArgumentException if {@code rule} is null
     */
    public Builder rule(HttpRule rule) {
      if (rule == null) {
        throw new IllegalArgumentException("rule must not be null");
      }
      long permits = rule.cost();
      rules.add(new Entry(rule, null, request -> true, request -> permits));
      return this;
    }

    /**
     * Adds a rule whose requests {@code keys} keys (a null key, or a throw, counts a request under
     * its client's address); rules apply in the order added.
     *
     * @throws IllegalArgumentException if an argument is null
     */
    public Builder rule(HttpRule rule, KeyResolver keys) {
      if (rule == null || keys == null) {
        throw new IllegalArgumentException(
            "rule and keys must not be null, were " + rule + " and " + keys);
      }
      long permits = rule.cost();
      rules.add(new Entry(rule, keys, request -> true, request -> permits));
      return this;
    }

    /**
     * Adds a rule whose requests {@code keys} keys, applied only where {@code condition} holds (one
     * that throws counts as holding), each request taking the permits {@code cost} gives: fewer
     * than {@link HttpRule#cost()} take the rule's cost, more than a limit holds are refused, and a
     * cost that throws takes the rule's cost (see {@link EnforcementCore.Builder#rule(HttpRule,
     * java.util.function.Function, Predicate, ToLongFunction)}). Rules apply in the order added.
     *
     * @throws IllegalArgumentException if an argument is null
     */
    public Builder rule(
        HttpRule rule,
        KeyResolver keys,
        Predicate<? super HttpServletRequest> condition,
        ToLongFunction<? super HttpServletRequest> cost) {
      if (rule == null || keys == null || condition == null || cost == null) {
        throw new IllegalArgumentException(
            "rule, keys, condition and cost must not be null, were "
                + Arrays.asList(rule, keys, condition, cost));
      }
      rules.add(new Entry(rule, keys, condition, cost));
      return this;
    }

    /**
     * Sets the backend, {@link RateLimiterFactory#inMemory()} by default.
     *
     * @throws IllegalArgumentException if {@code limiterFactory} is null
     */
    public Builder limiterFactory(RateLimiterFactory limiterFactory) {
      checks.limiterFactory(limiterFactory);
      this.limiterFactory = limiterFactory;
      return this;
    }

    /**
     * Sets the listener, none by default.
     *
     * @throws IllegalArgumentException if {@code listener} is null
     */
    public Builder listener(RateLimitListener listener) {
      checks.listener(listener);
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
      checks.pathFirewall(pathFirewall);
      this.pathFirewall = pathFirewall;
      return this;
    }

    /**
     * Sets how refusals are answered: 429 with an {@code application/problem+json} body by default.
     * The headers are the same whatever the answer.
     *
     * @throws IllegalArgumentException if {@code refusal} is null
     */
    public Builder refusal(RefusalReplies.Refusal refusal) {
      checks.refusal(refusal);
      this.refusal = refusal;
      return this;
    }

    /**
     * Creates one limiter per rule through the factory and builds the enforcer.
     *
     * @throws IllegalArgumentException if two rules share a name, or the factory rejects a rule
     */
    public RateLimitEnforcer build() {
      EnforcementCore.Builder<HttpServletRequest> core =
          EnforcementCore.<HttpServletRequest>builder()
              .limiterFactory(limiterFactory)
              .listener(listener)
              .rateLimitHeaders(rateLimitHeaders)
              .pathFirewall(pathFirewall)
              .refusal(refusal)
              .clientKey(clientIp::key);
      ClientIpResolver addresses = clientIp;
      for (Entry entry : rules) {
        KeyResolver keys = entry.keys() != null ? entry.keys() : KeyResolver.clientIp(addresses);
        core.rule(entry.rule(), keys::key, entry.condition(), entry.cost());
      }
      return new RateLimitEnforcer(core.build(), null);
    }
  }
}
