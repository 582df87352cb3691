package io.slidingwindow.webflux;

import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.EnforcementCore;
import io.slidingwindow.http.HttpReply;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.PathFirewall;
import io.slidingwindow.http.QuotaHeaders;
import io.slidingwindow.http.RateLimitListener;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.http.RefusalReplies;
import io.slidingwindow.http.RequestPaths;
import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.webflux.internal.FilterHandover;
import io.slidingwindow.webflux.internal.ReactiveKeySource;
import io.slidingwindow.webflux.internal.ReactiveRateLimitAnnotations;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Rules over request paths, and {@link RateLimit} on handler methods, in a reactive (WebFlux)
 * application: the same {@link EnforcementCore} as the servlet filter, so the same matching, keys,
 * headers, 429 answer, dry-run, listener and path firewall.
 *
 * <p>For each request: the path firewall first (400 for an ambiguous raw path, before any handler
 * runs); then the rules, matched against every reading of the raw path ({@link RequestPaths});
 * then, if the request goes to an annotated handler method, that method's rule. Where the handler
 * the dispatcher picked is about to run ({@code RateLimitHandlerAdapter}), the request is looked at
 * once more, in case a later web filter changed its path or method: the rules that apply to it now
 * and did not then count it, and so does the annotated method the filter did not count it by. A
 * rule counts an exchange once, however often its rules run on it (the filter called twice, or two
 * filters over the same rules): a later pass counts it only by the rules that apply to it now and
 * did not before, and the path firewall looks only the first time. Rules that the starter replaces
 * on a reload serve an exchange from its first pass to its last. Decisions go through the limiters'
 * asynchronous API, so no event-loop thread waits for a decision; the principal is resolved first,
 * also without blocking. A refusal ends the exchange with the core's answer; a request let through
 * carries the draft-10 headers (when turned on) and goes down the chain. A rule that counts only
 * some statuses ({@link HttpRule#countStatuses()}) is settled when the response is committed, with
 * its status ({@code CommitSettlement}); an exchange cancelled before that keeps its permits
 * counted.
 *
 * <p>{@link #builder()} makes a filter of rules keyed by the client address or a {@link
 * ReactiveKeyResolver}; the Spring Boot starter makes the filter of {@code
 * slidingwindow.http.rules} and the annotations. Thread-safe.
 */
public final class ReactiveRateLimitFilter implements WebFilter, Ordered {

  private static final String REPORT = ReactiveRateLimitFilter.class.getName() + ".report";

  private static final Mono<Boolean> GO_ON = Mono.just(true);

  private final EnforcementCore<ReactiveKeySource> fixed; // null if replaceable (see Pinned)
  private final Supplier<EnforcementCore<ReactiveKeySource>> cores;
  private final ClientAddresses addresses;
  private final ReactiveRateLimitAnnotations annotations;
  private final int order;

  static {
    FilterHandover.install(new Access());
  }

  private ReactiveRateLimitFilter(
      EnforcementCore<ReactiveKeySource> fixed,
      Supplier<EnforcementCore<ReactiveKeySource>> cores,
      ClientAddresses addresses,
      ReactiveRateLimitAnnotations annotations,
      int order) {
    if (cores == null || addresses == null) {
      throw new IllegalArgumentException(
          "cores and addresses must not be null, were " + cores + " and " + addresses);
    }
    this.fixed = fixed;
    this.cores = cores;
    this.addresses = addresses;
    this.annotations = annotations;
    this.order = order;
  }

  /** Returns a builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** The filter's rules, in the order they are applied (not those of annotations). */
  public List<HttpRule> rules() {
    return cores.get().rules();
  }

  @Override
  public int getOrder() {
    return order;
  }

  @Override
  public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
    EnforcementCore<ReactiveKeySource> core =
        fixed != null ? fixed : Pinned.coreFor(exchange, cores);
    ServerHttpRequest request = exchange.getRequest();
    String method = request.getMethod().name();
    String rawPath = request.getURI().getRawPath();
    // A rule counts a request once, though these rules run on it again; the client's spelling of
    // the path passed the firewall the first time.
    EnforcementCore.Applied earlier = Seen.appliedOf(exchange, core);
    Optional<HttpReply> badPath =
        earlier == null ? core.checkPath(method, rawPath) : Optional.empty();
    if (badPath.isPresent()) {
      return write(exchange, badPath.get());
    }
    List<String> paths = pathsOf(request);
    EnforcementCore.Applied applied = earlier != null ? earlier : core.newApplied();
    Seen.keep(exchange, this, core, method, rawPath, applied);
    return sourceOf(exchange)
        .flatMap(
            source ->
                enforce(core, source, method, paths, applied)
                    .flatMap(
                        outcome ->
                            outcome.allowed() && annotations != null && annotations.any()
                                ? annotations
                                    .coreOf(exchange)
                                    .flatMap(
                                        handler -> enforce(handler, source, method, paths, null))
                                    .defaultIfEmpty(outcome)
                                : Mono.just(outcome)))
        .flatMap(
            outcome -> {
              if (!outcome.allowed()) {
                return write(exchange, outcome.refusal());
              }
              setHeaders(exchange.getResponse(), outcome.headers());
              return CommitSettlement.watch(exchange, chain.filter(exchange));
            });
  }

  /**
   * Looks at the exchange once more where {@code handler}, the handler the dispatcher picked, is
   * about to run: if a web filter after this one changed the request's method or raw path (and no
   * other look over the same rules saw it as it is now), counts it by each of the filter's rules
   * that applies now and did not when the filter looked (never by one twice); then by the rule of
   * {@code handler} if it is annotated and the filter did not count the exchange by it. True to go
   * on to the handler, false once the exchange was answered with the refusal; null, at once and
   * allocating nothing, when there is nothing to count (an unchanged request to a handler without
   * an annotation).
   */
  private Mono<Boolean> atHandler(ServerWebExchange exchange, Object handler) {
    ServerHttpRequest request = exchange.getRequest();
    Seen looked = Seen.latest(exchange, this);
    // Rules that some look (this filter's or another's over them) saw the request as it is now
    // applied to it then; a second filter over the same rules finds this look and looks no more.
    EnforcementCore<ReactiveKeySource> rules =
        looked != null && !Seen.sawAsIs(exchange, looked.core(), request) ? looked.core() : null;
    EnforcementCore<ReactiveKeySource> annotated =
        annotations == null ? null : annotations.uncountedCoreOf(exchange, handler);
    if (rules == null && annotated == null) {
      return null;
    }
    // No path firewall here: the client's spelling passed it in the filter, and a path that a
    // filter of the application wrote is matched in every reading like any other.
    String method = request.getMethod().name();
    List<String> paths = pathsOf(request);
    if (rules != null) {
      Seen.keep(exchange, this, rules, method, request.getURI().getRawPath(), looked.applied());
    }
    return sourceOf(exchange)
        .flatMap(
            source ->
                (rules == null
                        ? GO_ON
                        : answer(exchange, enforce(rules, source, method, paths, looked.applied())))
                    .flatMap(
                        go ->
                            go && annotated != null
                                ? answer(exchange, enforce(annotated, source, method, paths, null))
                                : Mono.just(go)));
  }

  /**
   * Writes the refusal of {@code outcome} and gives false, or sets its headers on the response
   * (those of every rule that decided the exchange so far) and gives true.
   */
  private static Mono<Boolean> answer(
      ServerWebExchange exchange, Mono<EnforcementCore.Outcome> outcome) {
    return outcome.flatMap(
        decided -> {
          if (!decided.allowed()) {
            return write(exchange, decided.refusal()).thenReturn(false);
          }
          setHeaders(exchange.getResponse(), decided.headers());
          return GO_ON;
        });
  }

  /** Every reading of the request's raw path within the application. */
  private static List<String> pathsOf(ServerHttpRequest request) {
    return RequestPaths.readings(
        null, request.getURI().getRawPath(), request.getPath().contextPath().value());
  }

  /** What the key functions read of the exchange, once its principal is known. */
  private Mono<ReactiveKeySource> sourceOf(ServerWebExchange exchange) {
    return exchange
        .getPrincipal()
        .map(Optional::of)
        .defaultIfEmpty(Optional.empty())
        .map(principal -> new ReactiveKeySource(exchange, principal.orElse(null), addresses));
  }

  /**
   * The outcome of {@code core}'s rules not in {@code applied} (null for none), without blocking.
   */
  private static Mono<EnforcementCore.Outcome> enforce(
      EnforcementCore<ReactiveKeySource> core,
      ReactiveKeySource source,
      String method,
      List<String> paths,
      EnforcementCore.Applied applied) {
    Supplier<QuotaHeaders> report = () -> reportOf(source.exchange());
    return Mono.fromCompletionStage(
            () ->
                applied == null
                    ? core.enforceAsync(source, method, paths, report)
                    : core.enforceAsync(source, method, paths, report, applied))
        .doOnNext(outcome -> CommitSettlement.add(source.exchange(), outcome.settlement()));
  }

  /** The headers found so far for the exchange, shared by the rules and an annotated method's. */
  private static QuotaHeaders reportOf(ServerWebExchange exchange) {
    QuotaHeaders report = exchange.getAttribute(REPORT);
    if (report == null) {
      report = new QuotaHeaders();
      exchange.getAttributes().put(REPORT, report);
    }
    return report;
  }

  private static void setHeaders(ServerHttpResponse response, Map<String, String> headers) {
    HttpHeaders target = response.getHeaders();
    headers.forEach(target::set);
  }

  /**
   * Ends the exchange with {@code reply}: status, headers, and the UTF-8 body with its type,
   * written from Reactor's parallel scheduler. A reply is often made at once, on the thread that
   * took the request; when that request had waited on a kept-alive connection behind another,
   * Reactor Netty before 1.3.8 would not read that connection again after such an answer, and the
   * client's next request would hang (reactor-netty#4361).
   */
  static Mono<Void> write(ServerWebExchange exchange, HttpReply reply) {
    ServerHttpResponse response = exchange.getResponse();
    response.setStatusCode(HttpStatusCode.valueOf(reply.status()));
    setHeaders(response, reply.headers());
    byte[] body = reply.bodyBytes();
    response.getHeaders().set(HttpHeaders.CONTENT_TYPE, reply.contentType() + ";charset=UTF-8");
    response.getHeaders().setContentLength(body.length);
    return response
        .writeWith(Mono.just(response.bufferFactory().wrap(body)))
        .subscribeOn(Schedulers.parallel());
  }

  /** The filter's constructor and annotations, handed over to {@link FilterHandover}. */
  private static final class Access implements FilterHandover.Access<ReactiveRateLimitFilter> {
    @Override
    public ReactiveRateLimitFilter filter(
        Supplier<EnforcementCore<ReactiveKeySource>> cores,
        ClientAddresses addresses,
        ReactiveRateLimitAnnotations annotations,
        int order) {
      return new ReactiveRateLimitFilter(null, cores, addresses, annotations, order);
    }

    @Override
    public ReactiveRateLimitAnnotations annotations(ReactiveRateLimitFilter filter) {
      return filter.annotations;
    }

    @Override
    public Mono<Boolean> atHandler(
        ReactiveRateLimitFilter filter, ServerWebExchange exchange, Object handler) {
      return filter.atHandler(exchange, handler);
    }

    @Override
    public Mono<Void> write(ServerWebExchange exchange, HttpReply reply) {
      return ReactiveRateLimitFilter.write(exchange, reply);
    }
  }

  /** Builds a {@link ReactiveRateLimitFilter} of rules over paths. Not thread-safe. */
  public static final class Builder {
    // Each request carries the filter's addresses, so the client's key needs no setting here.
    private final EnforcementCore.Builder<ReactiveKeySource> core =
        EnforcementCore.<ReactiveKeySource>builder().clientKey(ReactiveKeySource::clientIp);
    private ClientAddresses addresses = ClientAddresses.direct();
    private int order;

    private Builder() {}

    /**
     * Sets how the client's address is found ({@link ClientAddresses#direct()}, the connection's
     * peer, by default): the key of a rule added without a key resolver, the key a request counts
     * under when its rule's key resolver returns null or throws, and the group of every key.
     *
     * @throws IllegalArgumentException if {@code addresses} is null
     */
    public Builder clientAddresses(ClientAddresses addresses) {
      if (addresses == null) {
        throw new IllegalArgumentException("addresses must not be null");
      }
      this.addresses = addresses;
      return this;
    }

    /**
     * Adds a rule keyed by the client's address (see {@link #clientAddresses}); rules apply in the
     * order added.
     *
     * @throws IllegalArgumentException if {@code rule} is null
     */
    public Builder rule(HttpRule rule) {
      if (rule == null) {
        throw new IllegalArgumentException("rule must not be null");
      }
      core.rule(rule, ReactiveKeySource::clientIp);
      return this;
    }

    /**
     * Adds a rule whose requests {@code keys} keys (a null key, or a throw, counts a request under
     * its client's address); rules apply in the order added.
     *
     * @throws IllegalArgumentException if an argument is null
     */
    public Builder rule(HttpRule rule, ReactiveKeyResolver keys) {
      if (rule == null || keys == null) {
        throw new IllegalArgumentException(
            "rule and keys must not be null, were " + rule + " and " + keys);
      }
      core.rule(rule, source -> keys.key(source.exchange(), source.principal()));
      return this;
    }

    /**
     * Sets the backend, {@link RateLimiterFactory#inMemory()} by default.
     *
     * @throws IllegalArgumentException if {@code limiterFactory} is null
     */
    public Builder limiterFactory(RateLimiterFactory limiterFactory) {
      core.limiterFactory(limiterFactory);
      return this;
    }

    /**
     * Sets the listener, none by default.
     *
     * @throws IllegalArgumentException if {@code listener} is null
     */
    public Builder listener(RateLimitListener listener) {
      core.listener(listener);
      return this;
    }

    /**
     * Sets whether to send the {@code RateLimit-Policy} and {@code RateLimit} headers; off by
     * default.
     */
    public Builder rateLimitHeaders(boolean rateLimitHeaders) {
      core.rateLimitHeaders(rateLimitHeaders);
      return this;
    }

    /**
     * Sets the firewall that answers ambiguous request paths with 400 before any rule counts them,
     * {@link PathFirewall#strict()} by default. It runs only if some rule has path patterns.
     *
     * @throws IllegalArgumentException if {@code pathFirewall} is null
     */
    public Builder pathFirewall(PathFirewall pathFirewall) {
      core.pathFirewall(pathFirewall);
      return this;
    }

    /**
     * Sets how refusals are answered: 429 with an {@code application/problem+json} body by default.
     *
     * @throws IllegalArgumentException if {@code refusal} is null
     */
    public Builder refusal(RefusalReplies.Refusal refusal) {
      core.refusal(refusal);
      return this;
    }

    /** Sets the filter's order among the application's web filters, 0 by default. */
    public Builder order(int order) {
      this.order = order;
      return this;
    }

    /**
     * Creates one limiter per rule through the factory and builds the filter.
     *
     * @throws IllegalArgumentException if two rules share a name, or the factory rejects a rule
     */
    public ReactiveRateLimitFilter build() {
      EnforcementCore<ReactiveKeySource> built = core.build();
      return new ReactiveRateLimitFilter(built, () -> built, addresses, null, order);
    }
  }
}
