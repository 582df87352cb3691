package io.slidingwindow.jaxrs;

import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.EnforcementCore;
import io.slidingwindow.http.HttpReply;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.PathFirewall;
import io.slidingwindow.http.RateLimitListener;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.http.RefusalReplies;
import jakarta.annotation.Priority;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.Feature;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.ext.WriterInterceptor;
import jakarta.ws.rs.ext.WriterInterceptorContext;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A JAX-RS filter that limits requests by rules over paths and answers 429 Too Many Requests, on
 * any JAX-RS runtime; the counterpart of the servlet filter, with the same rules, keys, headers and
 * answers.
 *
 * <pre>{@code
 * ResourceConfig app = new ResourceConfig(HelloResource.class)
 *     .register(GrizzlyPeerAddressFilter.class)   // ServletPeerAddressFilter on a servlet container
 *     .register(RateLimitFilter.builder()
 *         .rule(HttpRule.builder("hello").path("/hello").limit(Limit.parse("5/10s")).build())
 *         .rateLimitHeaders(true)
 *         .build());
 * }</pre>
 *
 * <p>It runs before resource matching ({@link PreMatching}) and after every other pre-matching
 * filter: its priority is {@link Integer#MAX_VALUE}, the last of all, so that its rules decide on
 * the method and the URI the request is routed with, after the filters that rewrite them (Jersey's
 * {@code HttpMethodOverrideFilter} and its {@code UriConnegFilter} for media-type and language
 * mappings, RESTEasy's {@code AcceptHeaderByFileSuffixFilter}, an application's own, which run at
 * 3000 to 5000); a rule that decided earlier could be walked around by {@code POST
 * /orders/1?_method=DELETE} or {@code GET /login.json}. Authentication and the peer address are
 * found before it. A request that another pre-matching filter ends ({@code abortWith}) before this
 * one runs is counted all the same, on its response: the rules decide it then, on the method and
 * URI it had, and if one refuses, the refusal replaces the other filter's answer (dropping its
 * cookies, challenge and entity headers, which a 429 does not mean). First the {@link PathFirewall}
 * (strict by default, run only if some rule has path patterns) answers 400 to a request path that
 * readers could take differently; nothing is counted. Then the rules whose paths and methods match,
 * with paths matched within the application against every reading of the request path, are applied
 * in order: each takes a permit under its key, and the first that refuses (and is not in dry-run)
 * answers 429 with {@code Retry-After} (whole seconds, rounded up, never early) and an {@code
 * application/problem+json} body that names no rule, key or limit. With rate-limit headers on,
 * every response to a request some rule decided carries the draft-10 {@code RateLimit-Policy} and
 * {@code RateLimit} headers. A key resolver that returns null or throws does not exempt a request:
 * it counts under the client's address ({@link Builder#clientAddresses}), the listener is told and
 * the log says so once per rule; so does a key the limiter rejects. The client's address is also
 * the group of every key in a rule's key table, so that the new keys of one client fill at most its
 * share of the table (see {@link io.slidingwindow.KeyOverflow}). A backend that fails lets the
 * request through and tells the listener. A rule that counts only some answers ({@link
 * HttpRule#countStatuses()}, such as failed logins) reserves its permits here and gives them back
 * when the status, after the exception mappers, is not one it counts: in the response filter for an
 * answer without an entity, else once the entity is written (the filter is also a {@link Feature}
 * that registers the first {@link WriterInterceptor} for that, outside the application's), so that
 * an entity whose writing fails, or that a writer interceptor fails after it was written, and is
 * answered by a mapper is settled by that answer, and one that fails after the answer was committed
 * stays counted. Response filters run in descending priority, so this one runs first among them and
 * reads the status that the resource, an exception mapper or an aborting filter gave, before other
 * response filters. All of this is {@link EnforcementCore}'s, shared with the servlet and reactive
 * filters; this class only reads the request and writes the answer.
 *
 * <p>Decisions are synchronous ({@code KeyedRateLimiter.decide}), on the request's thread, as
 * JAX-RS filters run. Instances are immutable and thread-safe if the key resolvers, the limiters
 * and the listener are.
 */
@PreMatching
@Priority(Integer.MAX_VALUE)
public final class RateLimitFilter
    implements ContainerRequestFilter, ContainerResponseFilter, Feature {

  /** The request property that says the request side decided the request. */
  private static final String DECIDED = RateLimitFilter.class.getName() + ".decided";

  /**
   * The request property that says the application has {@code SettleOnWrite}, which {@code
   * WriteMark} sets: without it (the filter registered with explicit contracts, {@code
   * register(filter, ContainerRequestFilter.class, ContainerResponseFilter.class)}, or on a runtime
   * that does not configure features that are also providers), the response filter settles every
   * answer at once.
   */
  private static final String SETTLES_ON_WRITE = RateLimitFilter.class.getName() + ".onWrite";

  private final EnforcementCore<ContainerRequestContext> core;

  private RateLimitFilter(EnforcementCore<ContainerRequestContext> core) {
    this.core = core;
  }

  /** Returns a builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** The rules, in the order they are applied. */
  public List<HttpRule> rules() {
    return core.rules();
  }

  @Override
  public void filter(ContainerRequestContext request) {
    request.setProperty(DECIDED, Boolean.TRUE);
    decide(request, reply -> JaxrsExchange.refuse(request, reply));
  }

  @Override
  public void filter(ContainerRequestContext request, ContainerResponseContext response) {
    if (request.getProperty(DECIDED) == null) {
      // Another pre-matching filter ended the request before this one's turn: count it now, once
      // (the runtime runs the response filters again when writing the answer fails before it was
      // committed, on the answer an exception mapper gives in its place).
      request.setProperty(DECIDED, Boolean.TRUE);
      decide(request, reply -> JaxrsExchange.refuse(request, response, reply));
    }
    JaxrsExchange.answer(request, response, request.getProperty(SETTLES_ON_WRITE) != null);
  }

  /**
   * Registers, beside this filter, the writer interceptor that settles the reservations of an
   * answer with an entity once the entity is written ({@code SettleOnWrite}). This filter is no
   * writer interceptor itself: RESTEasy never ran this class's {@code aroundWriteTo} when it was
   * one (JaxrsSettlementTest), presumably because the class is {@link PreMatching}. Registers also
   * {@code WriteMark}, which notes on each request of this application that the interceptor is
   * there; in an application where the runtime never configured this filter, the response filter
   * settles an answer with an entity at once, with the status it has then.
   */
  @Override
  public boolean configure(FeatureContext context) {
    context.register(new SettleOnWrite());
    context.register(new WriteMark());
    return true;
  }

  /** Notes on each request, before any other filter, that {@code SettleOnWrite} is registered. */
  @PreMatching
  @Priority(Integer.MIN_VALUE)
  static final class WriteMark implements ContainerRequestFilter {
    @Override
    public void filter(ContainerRequestContext request) {
      request.setProperty(SETTLES_ON_WRITE, Boolean.TRUE);
    }
  }

  /**
   * Writes the answer's entity, then settles the request's reservations with the answer's status
   * (an entity that fails to be written settles nothing). The first of the writer interceptors (its
   * priority is the lowest), so that what it proceeds to is every other one and the entity
   * provider's writing: an application's interceptor that fails the answer after the entity was
   * written (the runtime then answers the exception's mapper's status in its place) settles
   * nothing, and the mapper's answer is the one settled. Before, this one was the last, and such an
   * answer was settled as written: a rule counting 401s gave back every 401 that an outer
   * interceptor gave.
   *
   * <p>Being the first, it no longer sees every failure of the writing: an application's
   * interceptor that ignores a client gone catches the {@link IOException} and returns normally. So
   * the entity is written through a {@link WatchedOutput} (given back after, unless an inner
   * interceptor set a stream of its own over it), and an answer any write, flush or close of which
   * failed is not settled, and stays counted, however its failure was handled.
   *
   * <p>It sees only what fails before it returns. The runtime sends what its buffers still hold
   * (the whole of an entity that fits in them, with the head) when it ends the answer, after every
   * writer interceptor has returned, and a compressing interceptor that leaves its stream for the
   * runtime to close (Jersey's {@code GZipEncoder}) writes the deflater's last bytes then too: a
   * client gone by then is not seen, and its answer was settled as written, on Jersey and RESTEasy,
   * compressed or not (JaxrsCompressedAnswerTest). RESTEasy's gzip interceptor ends its stream
   * before it returns, into the runtime's buffers. No JAX-RS contract runs after that (a {@code
   * CompletionCallback} needs an {@code AsyncResponse}, and is given an exception only if no mapper
   * answered it), and flushing here would send every answer without its {@code Content-Length} and
   * still not know that the client read the bytes the network took.
   */
  @Priority(Integer.MIN_VALUE)
  static final class SettleOnWrite implements WriterInterceptor {
    @Override
    public void aroundWriteTo(WriterInterceptorContext context) throws IOException {
      OutputStream out = context.getOutputStream();
      WatchedOutput watched = new WatchedOutput(out);
      context.setOutputStream(watched);
      try {
        context.proceed();
      } finally {
        if (context.getOutputStream() == watched) {
          // else an inner interceptor's stream, over this one, that the runtime is to close (a
          // compressing one still to write its end): left in place
          context.setOutputStream(out);
        }
      }
      if (!watched.failed()) {
        JaxrsExchange.written(context);
      }
    }
  }

  /** Applies the firewall and the rules to {@code request}, ending it through {@code end}. */
  private void decide(ContainerRequestContext request, Consumer<HttpReply> end) {
    String method = request.getMethod();
    Optional<HttpReply> badPath = core.checkPath(method, JaxrsExchange.rawPath(request));
    if (badPath.isPresent()) {
      end.accept(badPath.get());
      return;
    }
    JaxrsExchange.apply(
        request,
        core.enforce(
            request, method, JaxrsExchange.paths(request), () -> JaxrsExchange.report(request)),
        end);
  }

  /** Builds a {@link RateLimitFilter}. Not thread-safe. */
  public static final class Builder {
    // Checks each setting at once; build() copies them into a fresh core builder.
    private final EnforcementCore.Builder<ContainerRequestContext> checks =
        EnforcementCore.builder();
    private final List<HttpRule> rules = new ArrayList<>();
    private final List<JaxrsKeyResolver> keys = new ArrayList<>();
    private RateLimiterFactory limiterFactory = RateLimiterFactory.inMemory();
    private RateLimitListener listener = RateLimitListener.NONE;
    private boolean rateLimitHeaders;
    private PathFirewall pathFirewall = PathFirewall.strict();
    private RefusalReplies.Refusal refusal = RefusalReplies.Refusal.DEFAULT;
    private ClientAddresses clientAddresses = ClientAddresses.direct();

    private Builder() {}

    /**
     * Adds a rule keyed by the client address, as {@link #clientAddresses} finds it; rules apply in
     * the order added.
     *
     * @throws IllegalArgumentException if {@code rule} is null
     */
    public Builder rule(HttpRule rule) {
      return add(rule, null);
    }

    /**
     * Adds a rule whose requests {@code keys} keys (a null key, or a throw, counts a request under
     * its client's address); rules apply in the order added. Paths are matched within the
     * application, below the JAX-RS base URI.
     *
     * @throws IllegalArgumentException if an argument is null
     */
    public Builder rule(HttpRule rule, JaxrsKeyResolver keys) {
      if (keys == null) {
        throw new IllegalArgumentException("keys must not be null, was null for " + rule);
      }
      return add(rule, keys);
    }

    private Builder add(HttpRule rule, JaxrsKeyResolver keys) {
      if (rule == null) {
        throw new IllegalArgumentException("rule must not be null");
      }
      rules.add(rule);
      this.keys.add(keys);
      return this;
    }

    /**
     * Sets how a request's client address is found (trusted proxies, IPv6 prefix), {@link
     * ClientAddresses#direct()} (the {@link PeerAddress}) by default: the key of the rules added
     * without a key resolver, the key a request counts under when its rule's resolver returns null
     * or throws, and the group of every key in the rules' key tables, whose new keys one client can
     * fill only up to its share. Pass the {@link ClientAddresses} the rules' resolvers use.
     *
     * @throws IllegalArgumentException if {@code clientAddresses} is null
     */
    public Builder clientAddresses(ClientAddresses clientAddresses) {
      if (clientAddresses == null) {
        throw new IllegalArgumentException("clientAddresses must not be null");
      }
      this.clientAddresses = clientAddresses;
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
     * Sets the listener (metrics, logs, tracing), none by default.
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
     * {@link PathFirewall#strict()} by default.
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
     *
     * @throws IllegalArgumentException if {@code refusal} is null
     */
    public Builder refusal(RefusalReplies.Refusal refusal) {
      checks.refusal(refusal);
      this.refusal = refusal;
      return this;
    }

    /**
     * Creates one limiter per rule through the factory and builds the filter.
     *
     * @throws IllegalArgumentException if two rules share a name, or the factory rejects a rule
     */
    public RateLimitFilter build() {
      JaxrsKeyResolver client = JaxrsKeyResolver.clientAddress(clientAddresses);
      EnforcementCore.Builder<ContainerRequestContext> core =
          EnforcementCore.<ContainerRequestContext>builder()
              .limiterFactory(limiterFactory)
              .listener(listener)
              .rateLimitHeaders(rateLimitHeaders)
              .pathFirewall(pathFirewall)
              .refusal(refusal)
              .clientKey(client::key);
      for (int i = 0; i < rules.size(); i++) {
        JaxrsKeyResolver resolver = keys.get(i) == null ? client : keys.get(i);
        core.rule(rules.get(i), resolver::key);
      }
      return new RateLimitFilter(core.build());
    }
  }
}
