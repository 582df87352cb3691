package io.slidingwindow.spring.method;

import io.slidingwindow.http.EnforcementCore;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimitListener;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.http.RequestKey;
import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.spring.RateLimitExceededException;
import io.slidingwindow.spring.internal.KeyLanguage;
import io.slidingwindow.spring.internal.RateLimitAnnotations;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.framework.AbstractAdvisingBeanPostProcessor;
import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.util.ClassUtils;

/**
 * Applies {@link RateLimit} to the methods of every Spring bean that is not a web controller (whose
 * handlers the web layer limits per request): each call is decided before the method runs, through
 * one keyed limiter per annotated method from the {@link RateLimiterFactory}, and a refused call
 * runs the method's {@link RateLimit#fallbackMethod() fallback} or ends in a {@link
 * RateLimitExceededException}.
 *
 * <p>How a call is decided depends on what the method returns. A plain value: synchronously, before
 * the call ({@link io.slidingwindow.KeyedRateLimiter#decide}); a refusal is thrown. A {@code
 * CompletionStage} (declared {@code CompletionStage} or {@code CompletableFuture}): without
 * blocking, when called ({@link io.slidingwindow.KeyedRateLimiter#decideAsync}); the method runs
 * once granted, on the thread that completed the decision (the caller's with the in-memory
 * backend), and a refusal is the returned stage's error. A Reactor {@code Mono} or {@code Flux}:
 * without blocking, at each subscription; the method runs and its publisher is subscribed once
 * granted, and a refusal is the error signal. Other reactive types stop start-up.
 *
 * <p>The key ({@link RateLimit#key()}) is {@code global} or an expression over the arguments in the
 * restricted key language; one that throws or gives null counts the call under the rule's {@code
 * global} key and is reported to the listener's {@code onError}. A limiter that fails lets the call
 * through and is reported so too. Limits, names, keys, return types and fallbacks are checked when
 * each bean is created: a bad one stops start-up with a message that names the bean, the method and
 * the attribute. The limiters are created once all singletons exist (for a bean created later, on
 * its first call). Thread-safe.
 */
public final class RateLimitMethodPostProcessor extends AbstractAdvisingBeanPostProcessor
    implements SmartInitializingSingleton {

  private static final long serialVersionUID = 1L;

  private final transient Supplier<RateLimiterFactory> limiterFactory;
  private final transient Supplier<RateLimitListener> listener;
  private final transient RateLimitAnnotations annotations = new RateLimitAnnotations();
  private final transient Map<Method, LimitedMethod> methods = new ConcurrentHashMap<>();
  private transient volatile Resolved resolved;

  /** The backend and listener, resolved once. */
  private record Resolved(RateLimiterFactory factory, RateLimitListener listener) {}

  /**
   * A post-processor whose limiters come from {@code limiterFactory} and whose decisions are told
   * to {@code listener}, each asked for once, when the first limiter is created (so that a
   * post-processor, created early, does not pull them in early).
   *
   * @throws IllegalArgumentException if an argument is null
   */
  public RateLimitMethodPostProcessor(
      Supplier<RateLimiterFactory> limiterFactory, Supplier<RateLimitListener> listener) {
    if (limiterFactory == null || listener == null) {
      throw new IllegalArgumentException(
          "limiterFactory and listener must not be null, were "
              + limiterFactory
              + " and "
              + listener);
    }
    this.limiterFactory = limiterFactory;
    this.listener = listener;
    this.advisor =
        new DefaultPointcutAdvisor(
            new AnnotationMatchingPointcut(null, RateLimit.class, true),
            (MethodInterceptor) this::invoke);
    setBeforeExistingAdvisors(true);
  }

  @Override
  protected boolean isEligible(Class<?> targetClass) {
    return !MergedAnnotations.from(targetClass, MergedAnnotations.SearchStrategy.TYPE_HIERARCHY)
            .isPresent("org.springframework.stereotype.Controller")
        && super.isEligible(targetClass);
  }

  /**
   * Checks every {@link RateLimit} method of {@code bean} and advises it.
   *
   * @throws IllegalArgumentException naming the bean, the method and the attribute if an annotation
   *     is invalid or its rule name is taken
   */
  @Override
  public Object postProcessAfterInitialization(Object bean, String beanName) {
    if (!(bean instanceof AopInfrastructureBean)) {
      Class<?> type = AopUtils.getTargetClass(bean);
      if (isEligible(type)) {
        MethodIntrospector.selectMethods(
                type,
                (MethodIntrospector.MetadataLookup<RateLimit>)
                    method -> AnnotatedElementUtils.findMergedAnnotation(method, RateLimit.class))
            .forEach(
                (method, annotation) ->
                    methods.computeIfAbsent(
                        specific(method, type),
                        m -> limited("bean '" + beanName + "'", type, m, annotation)));
      }
    }
    return super.postProcessAfterInitialization(bean, beanName);
  }

  /**
   * Creates the limiter of every method checked so far.
   *
   * @throws IllegalArgumentException if the factory rejects a rule
   */
  @Override
  public void afterSingletonsInstantiated() {
    Resolved backend = resolved();
    for (LimitedMethod limited : methods.values()) {
      limited.core(backend.factory(), backend.listener());
    }
  }

  private Object invoke(MethodInvocation invocation) throws Throwable {
    Object target = invocation.getThis();
    Class<?> type =
        target != null
            ? AopUtils.getTargetClass(target)
            : invocation.getMethod().getDeclaringClass();
    Method method = specific(invocation.getMethod(), type);
    LimitedMethod limited = methods.get(method);
    if (limited == null) {
      RateLimit annotation = AnnotatedElementUtils.findMergedAnnotation(method, RateLimit.class);
      if (annotation == null) {
        return invocation.proceed();
      }
      limited =
          methods.computeIfAbsent(
              method, m -> limited("a bean of " + type.getName(), type, m, annotation));
    }
    Resolved backend = resolved();
    EnforcementCore<Object[]> core = limited.core(backend.factory(), backend.listener());
    switch (limited.kind()) {
      case STAGE:
        return limited.stage(core, invocation, target);
      case MONO:
        return ReactiveCalls.mono(limited, core, invocation, target);
      case FLUX:
        return ReactiveCalls.flux(limited, core, invocation, target);
      case PLAIN:
      default:
        Object[] args = invocation.getArguments();
        EnforcementCore.Outcome outcome = limited.decide(core, args);
        return outcome.allowed()
            ? LimitedMethod.plain(limited, invocation, outcome.settlement())
            : limited.refused(target, args, limited.refusal(outcome));
    }
  }

  private Resolved resolved() {
    Resolved found = resolved;
    if (found == null) {
      synchronized (this) {
        found = resolved;
        if (found == null) {
          RateLimiterFactory factory = limiterFactory.get();
          RateLimitListener told = listener.get();
          if (factory == null || told == null) {
            throw new IllegalStateException(
                "@RateLimit on bean methods needs a RateLimiterFactory and a RateLimitListener,"
                    + " were "
                    + factory
                    + " and "
                    + told);
          }
          found = new Resolved(factory, told);
          resolved = found;
        }
      }
    }
    return found;
  }

  private static Method specific(Method method, Class<?> type) {
    return BridgeMethodResolver.findBridgedMethod(ClassUtils.getMostSpecificMethod(method, type));
  }

  private LimitedMethod limited(String bean, Class<?> type, Method method, RateLimit annotation) {
    String where = bean + ": " + RateLimitAnnotations.describe(method);
    HttpRule rule;
    try {
      rule = annotations.methodRule(method, annotation, false);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(bean + ": " + e.getMessage(), e);
    }
    LimitedMethod.Kind kind = kindOf(where, method.getReturnType());
    Function<Object[], RequestKey> key =
        KeyLanguage.methodKey(
            where + ": key",
            annotation.key(),
            method.getParameterCount(),
            new DefaultParameterNameDiscoverer().getParameterNames(method));
    Method fallback =
        annotation.fallbackMethod().isEmpty()
            ? null
            : Fallbacks.find(where, type, method, annotation.fallbackMethod());
    return new LimitedMethod(rule, key, kind, fallback, List.of(annotation.countOn()), where);
  }

  private static LimitedMethod.Kind kindOf(String where, Class<?> returns) {
    if (CompletionStage.class.isAssignableFrom(returns)) {
      if (!returns.isAssignableFrom(CompletableFuture.class)) {
        throw unsupported(where, returns, "declare CompletionStage or CompletableFuture");
      }
      return LimitedMethod.Kind.STAGE;
    }
    if (returns.getName().equals("reactor.core.publisher.Mono")) {
      return LimitedMethod.Kind.MONO;
    }
    if (returns.getName().equals("reactor.core.publisher.Flux")) {
      return LimitedMethod.Kind.FLUX;
    }
    for (Class<?> type : ClassUtils.getAllInterfacesForClassAsSet(returns)) {
      if (type.getName().equals("org.reactivestreams.Publisher")) {
        throw unsupported(where, returns, "of publishers, declare Mono or Flux");
      }
    }
    return LimitedMethod.Kind.PLAIN;
  }

  private static IllegalArgumentException unsupported(
      String where, Class<?> returns, String instead) {
    return new IllegalArgumentException(
        where + ": cannot limit a method that returns " + returns.getName() + "; " + instead);
  }
}
