package io.slidingwindow.webflux.internal;

import io.slidingwindow.http.EnforcementCore;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.PathFirewall;
import io.slidingwindow.http.RateLimitListener;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.http.RefusalReplies;
import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.spring.internal.RateLimitAnnotations;
import io.slidingwindow.webflux.ReactiveKeyResolver;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@link RateLimit} on WebFlux handler methods: one rule and one keyed limiter per annotated
 * method, created through the same {@link RateLimiterFactory} as the filter's rules. The annotated
 * methods are found when the application starts ({@link #register}); for each request the handler
 * is looked up as the dispatcher will look it up, only if some method is annotated. A web filter
 * after the rate limit filter may still change where the request goes (a path without its trailing
 * slash, an overridden method), so the handler the dispatcher does pick is checked again ({@link
 * RateLimitHandlerAdapter}): an annotated method that no lookup found for the exchange is counted
 * then. Thread-safe.
 */
public final class ReactiveRateLimitAnnotations {

  private static final AtomicInteger INSTANCES = new AtomicInteger();

  /**
   * The exchange attribute holding the annotated method whose rule the exchange was counted by
   * here: one per instance, so that another filter's annotations count on their own.
   */
  private final String counted =
      ReactiveRateLimitAnnotations.class.getName() + ".counted#" + INSTANCES.incrementAndGet();

  private final RateLimiterFactory limiterFactory;
  private final RateLimitListener listener;
  private final boolean rateLimitHeaders;
  private final boolean defaultDryRun;
  private final RefusalReplies.Refusal refusal;
  private final Function<String, ReactiveKeyResolver> keyResolverBeans;
  private final RateLimitAnnotations annotations = new RateLimitAnnotations();
  private final Map<Method, EnforcementCore<ReactiveKeySource>> cores = new ConcurrentHashMap<>();
  private volatile List<RequestMappingHandlerMapping> mappings = List.of();

  /**
   * Annotations whose limiters come from {@code limiterFactory}.
   *
   * @param defaultDryRun dry-run for every annotation, on top of each one's own flag
   * @param keyResolverBeans looks up a {@link ReactiveKeyResolver} bean by name for {@code
   *     bean:NAME} keys; returns null if there is none
   * @throws IllegalArgumentException if an argument is null
   */
  public ReactiveRateLimitAnnotations(
      RateLimiterFactory limiterFactory,
      RateLimitListener listener,
      boolean rateLimitHeaders,
      boolean defaultDryRun,
      Function<String, ReactiveKeyResolver> keyResolverBeans,
      RefusalReplies.Refusal refusal) {
    if (limiterFactory == null || listener == null || keyResolverBeans == null || refusal == null) {
      throw new IllegalArgumentException(
          "limiterFactory, listener, keyResolverBeans and refusal must not be null, were "
              + Arrays.asList(limiterFactory, listener, keyResolverBeans, refusal));
    }
    this.refusal = refusal;
    this.limiterFactory = limiterFactory;
    this.listener = listener;
    this.rateLimitHeaders = rateLimitHeaders;
    this.defaultDryRun = defaultDryRun;
    this.keyResolverBeans = keyResolverBeans;
  }

  /**
   * Takes {@code ruleName} for {@code owner} (a filter rule), so that no annotation can use it.
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

  /**
   * Checks and prepares the annotation of every handler method of {@code mappings}, and looks
   * handlers up in them from now on.
   *
   * @throws IllegalArgumentException naming the method if an annotation is invalid or its rule name
   *     is taken
   */
  public void register(List<RequestMappingHandlerMapping> mappings) {
    for (RequestMappingHandlerMapping mapping : mappings) {
      for (HandlerMethod handler : mapping.getHandlerMethods().values()) {
        Method method = handler.getMethod();
        RateLimit annotation = AnnotatedElementUtils.findMergedAnnotation(method, RateLimit.class);
        if (annotation != null && !cores.containsKey(method)) {
          cores.put(method, build(method, annotation));
        }
      }
    }
    this.mappings = List.copyOf(mappings);
  }

  /** Whether some handler method is annotated. */
  public boolean any() {
    return !cores.isEmpty();
  }

  /**
   * The core of the annotated handler method {@code exchange} goes to; empty if none, or if the
   * lookup fails (a method or media type no handler takes), which the dispatcher then answers.
   */
  public Mono<EnforcementCore<ReactiveKeySource>> coreOf(ServerWebExchange exchange) {
    return Flux.fromIterable(mappings)
        .concatMap(mapping -> mapping.getHandler(exchange))
        .next()
        .onErrorResume(error -> Mono.empty())
        .flatMap(handler -> Mono.justOrEmpty(uncountedCoreOf(exchange, handler)));
  }

  /** Whether {@code handler} is a handler method with {@link RateLimit}. */
  public boolean annotated(Object handler) {
    return handler instanceof HandlerMethod method && cores.containsKey(method.getMethod());
  }

  /**
   * The core of {@code handler}, the handler method the dispatcher picked for {@code exchange}, if
   * it is annotated and the exchange was not yet counted by its rule; null otherwise. The exchange
   * is then taken as counted by it.
   */
  public EnforcementCore<ReactiveKeySource> uncountedCoreOf(
      ServerWebExchange exchange, Object handler) {
    if (!(handler instanceof HandlerMethod method)) {
      return null;
    }
    EnforcementCore<ReactiveKeySource> core = cores.get(method.getMethod());
    if (core == null || method.getMethod().equals(exchange.getAttribute(counted))) {
      return null;
    }
    exchange.getAttributes().put(counted, method.getMethod());
    return core;
  }

  private EnforcementCore<ReactiveKeySource> build(Method method, RateLimit annotation) {
    HttpRule rule = annotations.rule(method, annotation, defaultDryRun);
    String where = RateLimitAnnotations.describe(method) + ": key";
    String key = annotation.key().isBlank() ? "ip" : annotation.key();
    return EnforcementCore.<ReactiveKeySource>builder()
        .rule(rule, ReactiveKeys.resolver(where, key, keyResolverBeans))
        .limiterFactory(limiterFactory)
        .listener(listener)
        .rateLimitHeaders(rateLimitHeaders)
        .refusal(refusal)
        .pathFirewall(PathFirewall.off())
        .clientKey(ReactiveKeySource::clientIp)
        .build();
  }
}
