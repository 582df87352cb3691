package io.slidingwindow.webmvc;

import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimitListener;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.http.RefusalReplies;
import io.slidingwindow.servlet.ClientIpResolver;
import io.slidingwindow.servlet.KeyResolver;
import io.slidingwindow.servlet.RateLimitEnforcer;
import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.spring.RateLimitKeyContext;
import io.slidingwindow.spring.internal.RateLimitAnnotations;
import io.slidingwindow.webmvc.internal.InterceptorHandover;
import io.slidingwindow.webmvc.internal.ServletKeys;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.AsyncHandlerInterceptor;

/**
 * Enforces {@link RateLimit} on Spring MVC handler methods: one rule and one keyed limiter per
 * annotated method, created through the same {@link RateLimiterFactory} as the filter's rules.
 *
 * <p>An annotated method counts a request once, in whichever dispatch of it the method is reached
 * first: the request dispatch, or a forward (a view name {@code forward:...}, a view controller, a
 * filter or servlet that forwards), include, error or async dispatch of it; a later dispatch of the
 * same request to the same method (the async dispatch of a method that returned a {@code Callable}
 * or {@code DeferredResult}) counts it no more. Keys are written in the same language as rules'
 * keys in {@code application.yml}: shorthands ({@code ip}, {@code principal}, {@code header:NAME},
 * {@code global}, {@code bean:NAME}) or an expression over {@link RateLimitKeyContext} in a
 * restricted context; see {@link RateLimit#key()}. A key that is null or throws counts the request
 * under its client's address. A rule that counts only some statuses ({@link
 * RateLimit#countStatuses()}) is settled after the handler's answer is rendered, or when its
 * asynchronous processing completes.
 *
 * <p>Before every handler (annotated or not), it also enforces once more the rules of the rate
 * limit filters that let the request through ({@link RateLimitEnforcer#recheck}): a filter after
 * them that changed the request's method or path (a method override, a path rewrite) would
 * otherwise take it past a rule that applies to the request the handler gets.
 *
 * <p>{@link #builder()} makes one for an application that adds it to Spring MVC's interceptors
 * itself; the Spring Boot starter makes its own, and also checks every annotated handler method at
 * start-up. Thread-safe.
 */
public final class RateLimitInterceptor implements AsyncHandlerInterceptor {

  private final RateLimiterFactory limiterFactory;
  private final RateLimitListener listener;
  private final ClientIpResolver clientIp;
  private final Function<String, KeyResolver> keyResolverBeans;
  private final boolean rateLimitHeaders;
  private final boolean defaultDryRun;
  private final RefusalReplies.Refusal refusal;
  private final Map<Method, RateLimitEnforcer> enforcers = new ConcurrentHashMap<>();
  private final Map<Method, Boolean> unannotated = new ConcurrentHashMap<>();
  private final RateLimitAnnotations annotations = new RateLimitAnnotations();

  static {
    InterceptorHandover.install(new Access());
  }

  private RateLimitInterceptor(Builder builder) {
    this.limiterFactory = builder.limiterFactory;
    this.listener = builder.listener;
    this.clientIp = builder.clientIp;
    this.rateLimitHeaders = builder.rateLimitHeaders;
    this.defaultDryRun = builder.defaultDryRun;
    this.keyResolverBeans = builder.keyResolverBeans;
    this.refusal = builder.refusal;
  }

  /** Returns a builder. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Checks and prepares the annotation of {@code method}, if any, so that a bad one fails at
   * start-up.
   */
  private void register(Method method) {
    enforcerFor(method);
  }

  /** {@code @RateLimit on com.example.Api.order(String)}: the method, overloads told apart. */
  static String describe(Method method) {
    return RateLimitAnnotations.describe(method);
  }

  @Override
  public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler)
      throws Exception {
    // Rechecks the filter's rules in the request dispatch only: forward, include, error and async
    // dispatches are left to the filter's own dispatcher types.
    if (!RateLimitEnforcer.recheck(request, response)) {
      return false; // a filter's rule that applies to the request as a later filter changed it
    }
    if (!(handler instanceof HandlerMethod handlerMethod)) {
      return true;
    }
    RateLimitEnforcer enforcer = enforcerFor(handlerMethod.getMethod());
    // In any dispatch: a forward to the method must not pass uncounted. The enforcer counts a
    // request once over all its dispatches, and the error page of a refusal not at all.
    return enforcer == null || enforcer.enforce(request, response);
  }

  /**
   * Settles the request's reservations ({@link RateLimitEnforcer#settle}) once its answer is
   * rendered: with its status, or 500 for an exception no handler resolved while the answer was
   * still open. An exception thrown after the answer was committed settles it with the status the
   * client was sent: a handler that wrote its answer and then failed (or lost its client while
   * writing) has been served. An include dispatch settles nothing (its status is not the answer's):
   * {@code settle} leaves it to the dispatch around it.
   */
  @Override
  public void afterCompletion(
      HttpServletRequest request, HttpServletResponse response, Object handler, Exception ex) {
    RateLimitEnforcer.settle(request, response, ex);
  }

  /** Settles the request's reservations when its asynchronous processing completes. */
  @Override
  public void afterConcurrentHandlingStarted(
      HttpServletRequest request, HttpServletResponse response, Object handler) {
    RateLimitEnforcer.settle(request, response, null);
  }

  private RateLimitEnforcer enforcerFor(Method method) {
    RateLimitEnforcer enforcer = enforcers.get(method);
    if (enforcer != null || unannotated.containsKey(method)) {
      return enforcer;
    }
    RateLimit annotation = AnnotatedElementUtils.findMergedAnnotation(method, RateLimit.class);
    if (annotation == null) {
      unannotated.put(method, Boolean.TRUE);
      return null;
    }
    return enforcers.computeIfAbsent(method, m -> build(m, annotation));
  }

  private RateLimitEnforcer build(Method method, RateLimit annotation) {
    HttpRule rule = annotations.rule(method, annotation, defaultDryRun);
    return RateLimitEnforcer.builder()
        .rule(rule, keyResolver(describe(method), annotation.key()))
        .limiterFactory(limiterFactory)
        .listener(listener)
        .rateLimitHeaders(rateLimitHeaders)
        .refusal(refusal)
        .clientIp(clientIp)
        .build();
  }

  private KeyResolver keyResolver(String where, String key) {
    if (key.isBlank()) {
      return KeyResolver.clientIp(clientIp);
    }
    return ServletKeys.resolver(where + ": key", key, clientIp, keyResolverBeans);
  }

  /** The interceptor's start-up wiring, handed over to {@link InterceptorHandover}. */
  private static final class Access implements InterceptorHandover.Access<RateLimitInterceptor> {
    @Override
    public void register(RateLimitInterceptor interceptor, Method method) {
      interceptor.register(method);
    }

    @Override
    public void reserve(RateLimitInterceptor interceptor, String ruleName, String owner) {
      interceptor.annotations.claim(ruleName, owner);
    }

    @Override
    public void checkRuleName(RateLimitInterceptor interceptor, String ruleName) {
      interceptor.annotations.checkRuleName(ruleName);
    }
  }

  /** Builds a {@link RateLimitInterceptor}. Not thread-safe. */
  public static final class Builder {
    private RateLimiterFactory limiterFactory = RateLimiterFactory.inMemory();
    private RateLimitListener listener = RateLimitListener.NONE;
    private ClientIpResolver clientIp = ClientIpResolver.direct();
    private boolean rateLimitHeaders;
    private boolean defaultDryRun;
    private Function<String, KeyResolver> keyResolverBeans = name -> null;
    private RefusalReplies.Refusal refusal = RefusalReplies.Refusal.DEFAULT;

    private Builder() {}

    /**
     * Sets the backend that makes each annotated method's limiter, {@link
     * RateLimiterFactory#inMemory()} by default.
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
     * Sets the listener told of every decision, none by default.
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
     * Sets how the client's address is found ({@link ClientIpResolver#direct()}, the connection's
     * peer, by default): the key of an annotation without a key, of the {@code ip} shorthand, and
     * of a request whose key is null or throws.
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
     * Sets whether to send the {@code RateLimit-Policy} and {@code RateLimit} headers; off by
     * default.
     */
    public Builder rateLimitHeaders(boolean rateLimitHeaders) {
      this.rateLimitHeaders = rateLimitHeaders;
      return this;
    }

    /**
     * Sets dry-run for every annotation, on top of each one's own {@link RateLimit#dryRun()}: a
     * refused request is reported to the listener and let through. Off by default.
     */
    public Builder defaultDryRun(boolean defaultDryRun) {
      this.defaultDryRun = defaultDryRun;
      return this;
    }

    /**
     * Sets how {@code bean:NAME} keys find their {@link KeyResolver}: by name, null if there is
     * none (then the annotation is rejected when its method is first seen). By default there are
     * none.
     *
     * @throws IllegalArgumentException if {@code keyResolverBeans} is null
     */
    public Builder keyResolverBeans(Function<String, KeyResolver> keyResolverBeans) {
      if (keyResolverBeans == null) {
        throw new IllegalArgumentException("keyResolverBeans must not be null");
      }
      this.keyResolverBeans = keyResolverBeans;
      return this;
    }

    /**
     * Sets how refusals are answered: 429 with an {@code application/problem+json} body by default.
     *
     * @throws IllegalArgumentException if {@code refusal} is null
     */
    public Builder refusal(RefusalReplies.Refusal refusal) {
      if (refusal == null) {
        throw new IllegalArgumentException("refusal must not be null");
      }
      this.refusal = refusal;
      return this;
    }

    /** Builds the interceptor; each annotated method's limiter is made when the method is seen. */
    public RateLimitInterceptor build() {
      return new RateLimitInterceptor(this);
    }
  }
}
