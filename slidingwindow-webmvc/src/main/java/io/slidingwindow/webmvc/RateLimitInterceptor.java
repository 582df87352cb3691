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
import io.slidingwindow.webmvc.internal.ServletKeys;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.lang.reflect.Method;
import java.util.Arrays;
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
 * <p>Only the request dispatch is counted: async, error and forward dispatches pass. Keys are
 * written in the same language as rules' keys in {@code application.yml}: shorthands ({@code ip},
 * {@code principal}, {@code header:NAME}, {@code global}, {@code bean:NAME}) or an expression over
 * {@link RateLimitKeyContext} in a restricted context; see {@link RateLimit#key()}. A key that is
 * null or throws counts the request under its client's address. A rule that counts only some
 * statuses ({@link RateLimit#countStatuses()}) is settled after the handler's answer is rendered,
 * or when its asynchronous processing completes.
 *
 * <p>Before every handler (annotated or not), it also enforces once more the rules of the rate
 * limit filters that let the request through ({@link RateLimitEnforcer#recheck}): a filter after
 * them that changed the request's method or path (a method override, a path rewrite) would
 * otherwise take it past a rule that applies to the request the handler gets. Thread-safe.
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

  /**
   * Creates an interceptor whose keys cannot name {@link KeyResolver} beans.
   *
   * @param defaultDryRun dry-run for every annotation, on top of each one's own flag
   * @throws IllegalArgumentException if {@code limiterFactory}, {@code listener} or {@code
   *     clientIp} is null
   */
  public RateLimitInterceptor(
      RateLimiterFactory limiterFactory,
      RateLimitListener listener,
      ClientIpResolver clientIp,
      boolean rateLimitHeaders,
      boolean defaultDryRun) {
    this(
        limiterFactory,
        listener,
        clientIp,
        rateLimitHeaders,
        defaultDryRun,
        name -> null,
        RefusalReplies.Refusal.DEFAULT);
  }

  /**
   * Creates an interceptor that answers refused requests with {@code refusal}.
   *
   * @param defaultDryRun dry-run for every annotation, on top of each one's own flag
   * @param keyResolverBeans looks up a {@link KeyResolver} bean by name for {@code bean:NAME} keys;
   *     returns null if there is none
   * @throws IllegalArgumentException if an argument is null
   */
  public RateLimitInterceptor(
      RateLimiterFactory limiterFactory,
      RateLimitListener listener,
      ClientIpResolver clientIp,
      boolean rateLimitHeaders,
      boolean defaultDryRun,
      Function<String, KeyResolver> keyResolverBeans,
      RefusalReplies.Refusal refusal) {
    if (limiterFactory == null
        || listener == null
        || clientIp == null
        || keyResolverBeans == null
        || refusal == null) {
      throw new IllegalArgumentException(
          "limiterFactory, listener, clientIp, keyResolverBeans and refusal must not be null, were "
              + Arrays.asList(limiterFactory, listener, clientIp, keyResolverBeans, refusal));
    }
    this.keyResolverBeans = keyResolverBeans;
    this.limiterFactory = limiterFactory;
    this.listener = listener;
    this.clientIp = clientIp;
    this.rateLimitHeaders = rateLimitHeaders;
    this.defaultDryRun = defaultDryRun;
    this.refusal = refusal;
  }

  /**
   * Checks and prepares the annotation of {@code method}, if any, so that a bad one fails at
   * start-up.
   *
   * @throws IllegalArgumentException naming the method if its annotation is invalid, or naming both
   *     owners if its rule name is already taken by another method or a reserved rule
   */
  public void register(Method method) {
    enforcerFor(method);
  }

  /**
   * Takes {@code ruleName} for {@code owner} (a filter rule), so that no annotation can use it:
   * each rule name stands for one limiter, one metric series and, on a shared backend, one key
   * space.
   *
   * @throws IllegalArgumentException naming both owners if an annotation already uses the name
   */
  public void reserve(String ruleName, String owner) {
    annotations.claim(ruleName, owner);
  }

  /**
   * Checks the name of a rule of a reloaded configuration against the annotations' names.
   *
   * @throws IllegalArgumentException naming the annotated method if an annotation has it
   */
  public void checkRuleName(String ruleName) {
    annotations.checkRuleName(ruleName);
  }

  /** {@code @RateLimit on com.example.Api.order(String)}: the method, overloads told apart. */
  static String describe(Method method) {
    return RateLimitAnnotations.describe(method);
  }

  @Override
  public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler)
      throws Exception {
    if (request.getDispatcherType() != DispatcherType.REQUEST) {
      return true; // an async, error or forward dispatch of a request already counted
    }
    if (!RateLimitEnforcer.recheck(request, response)) {
      return false; // a filter's rule that applies to the request as a later filter changed it
    }
    if (!(handler instanceof HandlerMethod handlerMethod)) {
      return true;
    }
    RateLimitEnforcer enforcer = enforcerFor(handlerMethod.getMethod());
    return enforcer == null || enforcer.enforce(request, response);
  }

  /**
   * Settles the request's reservations ({@link RateLimitEnforcer#settle}) once its answer is
   * rendered: with its status, or 500 for an exception no handler resolved.
   */
  @Override
  public void afterCompletion(
      HttpServletRequest request, HttpServletResponse response, Object handler, Exception ex) {
    if (request.getDispatcherType() == DispatcherType.REQUEST) {
      RateLimitEnforcer.settle(request, response, ex);
    }
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
}
