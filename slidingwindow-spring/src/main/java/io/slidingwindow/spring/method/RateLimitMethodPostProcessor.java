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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.framework.AbstractAdvisingBeanPostProcessor;
import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodIntrospector;
import org.springframework.util.ClassUtils;

/**
 * Applies {@link RateLimit} to the methods of every Spring bean, except the request handlers of web
 * controllers (a {@code @RequestMapping} or {@code @HttpExchange} method of a {@code @Controller},
 * which the web layer limits per request): each call is decided before the method runs, through one
 * keyed limiter per annotated method from the {@link RateLimiterFactory}, and a refused call runs
 * the method's {@link RateLimit#fallbackMethod() fallback} or ends in a {@link
 * RateLimitExceededException}. A controller's other methods ({@code @QueryMapping},
 * {@code @MessageMapping}, plain ones) are limited here.
 *
 * <p>How a call is decided depends on what the method returns. A plain value: synchronously, before
 * the call ({@link io.slidingwindow.KeyedRateLimiter#decide}); a refusal is thrown. A {@code
 * CompletionStage} (declared {@code CompletionStage} or {@code CompletableFuture}): without
 * blocking, when called ({@link io.slidingwindow.KeyedRateLimiter#decideAsync}); the method runs
 * once granted, on the thread that completed the decision (the caller's with the in-memory
 * backend), and a refusal is the returned stage's error. A Reactor {@code Mono} or {@code Flux}:
 * without blocking, at each subscription; the method runs and its publisher is subscribed once
 * granted, and a refusal is the error signal. Other reactive types stop start-up, and so does
 * {@link RateLimit#countOn()} on a method whose call ends after it returns (a {@code Future}, a
 * Kotlin {@code suspend} function, an {@code @Async} method).
 *
 * <p>The key ({@link RateLimit#key()}) is {@code global} or an expression over the arguments in the
 * restricted key language; one that throws or gives null counts the call under the rule's {@code
 * global} key and is reported to the listener's {@code onError}. A limiter that fails lets the call
 * through and is reported so too. Limits, names, keys, return types and fallbacks are checked when
 * each bean is created: a bad one stops start-up with a message that names the bean, the method and
 * the attribute. So does a method the bean's proxy cannot intercept (static, private, final, or
 * outside the interfaces of an interface-based proxy), which would otherwise never be limited. The
 * limiters are created once all singletons exist (for a bean created later, on its first call).
 * Thread-safe.
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
        new DefaultPointcutAdvisor(new LimitedMethods(), (MethodInterceptor) this::invoke);
    setBeforeExistingAdvisors(true);
  }

  /**
   * Checks every {@link RateLimit} method of {@code bean} and advises it.
   *
   * @throws IllegalArgumentException naming the bean, the method and the attribute if an annotation
   *     is invalid or its rule name is taken, or naming the bean, the method and why if the proxy
   *     cannot intercept the method
   */
  @Override
  public Object postProcessAfterInitialization(Object bean, String beanName) {
    if (bean instanceof AopInfrastructureBean) {
      return super.postProcessAfterInitialization(bean, beanName);
    }
    Class<?> type = AopUtils.getTargetClass(bean);
    if (!isEligible(type)) {
      return super.postProcessAfterInitialization(bean, beanName);
    }
    String where = "bean '" + beanName + "'";
    List<Method> found = new ArrayList<>();
    MethodIntrospector.selectMethods(
            type,
            (MethodIntrospector.MetadataLookup<RateLimit>)
                method -> LimitedMethods.annotation(method, type))
        .forEach(
            (method, annotation) -> {
              Method specific = specific(method, type);
              found.add(specific);
              methods.computeIfAbsent(specific, m -> limited(where, type, m, annotation));
            });
    Object proxy = super.postProcessAfterInitialization(bean, beanName);
    ProxyReach.check(where, type, proxy, found);
    return proxy;
  }

  /**
   * A class-based proxy for a controller, always: an interface-based one would hide from the web
   * layer the handlers that its interfaces do not declare.
   */
  @Override
  protected ProxyFactory prepareProxyFactory(Object bean, String beanName) {
    ProxyFactory factory = super.prepareProxyFactory(bean, beanName);
    if (LimitedMethods.controller(AopUtils.getTargetClass(bean))) {
      factory.setProxyTargetClass(true);
    }
    return factory;
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
      RateLimit annotation = LimitedMethods.annotation(method, type);
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

  /** The method of {@code type} that a call of {@code method} (of an interface, say) runs. */
  static Method specific(Method method, Class<?> type) {
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
    LimitedMethod.Kind kind = Returns.kindOf(where, type, method, annotation.countOn().length > 0);
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
}
