package io.slidingwindow.spring.method;

import io.slidingwindow.http.EnforcementCore;
import io.slidingwindow.http.RateLimitListener;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.spring.RateLimitExceededException;
import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.Advisor;
import org.springframework.aop.framework.AbstractAdvisingBeanPostProcessor;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.framework.ProxyConfig;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.scope.ScopedObject;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.core.SmartClassLoader;
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
 * <p>A bean that is an interface-based proxy exposing interfaces its target class does not
 * implement is limited on the methods of those interfaces: a Spring Data repository (its target,
 * the store's base class such as {@code SimpleJpaRepository}, implements {@code CrudRepository} but
 * not the application's interface), with its derived and declared queries, default methods,
 * fragments' methods and the {@code CrudRepository} methods it redeclares, each annotated there or
 * on an interface it extends; an HTTP interface client. One operation counts under one rule, named
 * after the interface that declares it ({@code OrderRepository.findByCustomer}), whichever of the
 * proxy's interfaces the caller goes through; an annotation of the target class's method that runs
 * it comes first, as on any bean. A call that such a proxy hands to another bean whose method
 * carries the same annotation (a fragment's implementation) counts once, at the proxy. A {@link
 * RateLimit#fallbackMethod()} has no class of the application's to live in there, and stops
 * start-up. A repository is checked at start-up, whether a bean uses it or not.
 *
 * <p>The key ({@link RateLimit#key()}) is {@code global} or an expression over the arguments in the
 * restricted key language; one that throws or gives null counts the call under the rule's {@code
 * global} key and is reported to the listener's {@code onError}. A limiter that fails lets the call
 * through and is reported so too. Limits, names, keys, return types and fallbacks are checked when
 * each bean is created, and those of the beans not made yet (lazy, prototypes, other scopes,
 * repositories no bean uses) once all singletons exist, as their creation will check them: a bad
 * one stops start-up with a message that names the bean, the method and the attribute. So does a
 * method the bean's proxy cannot intercept (static, private, final in a class-based proxy, or
 * outside the interfaces of an interface-based one), which would otherwise never be limited; for a
 * bean not made yet, only if no proxy it may get (as far as start-up can tell) reaches the method,
 * its creation checking the one it gets. Once all singletons exist, so does a method of a bean that
 * is never proxied: a singleton the post-processor was never shown because a post-processor needed
 * it before this one was registered, an {@link AopInfrastructureBean} other than a scoped proxy
 * (whose calls run on the bean of the scope, advised when made). A bean that another post-processor
 * proxied first is advised through that proxy, whose kind the check follows; an opaque
 * interface-based one, which hides its target's class, stops start-up if that class's methods carry
 * an annotation its interfaces do not. The early reference to a bean in a circular reference,
 * perhaps another post-processor's proxy made early, is advised and checked alike, and is what
 * Spring exposes. The limiters are created once all singletons exist (for a bean created later, on
 * its first call). Thread-safe.
 */
public final class RateLimitMethodPostProcessor extends AbstractAdvisingBeanPostProcessor
    implements SmartInitializingSingleton, BeanFactoryAware {

  private static final long serialVersionUID = 1L;

  private final transient Supplier<RateLimiterFactory> limiterFactory;
  private final transient Supplier<RateLimitListener> listener;
  private final transient MethodRules rules = new MethodRules();

  /**
   * The names of the beans shown to the post-processor until all singletons exist, so that those it
   * never was can be found then ({@link StartUpChecks}); null after that.
   */
  private transient volatile Set<String> shown = ConcurrentHashMap.newKeySet();

  private transient ConfigurableListableBeanFactory beanFactory;

  /**
   * The early reference (a circular reference's) to each bean being made that was asked for one, as
   * advised; until the bean is initialized.
   */
  private final transient Map<String, Object> early = new ConcurrentHashMap<>();

  /**
   * Whether some interface-based proxy of this post-processor counts calls itself ({@link
   * #adviseInterfaces}); until one does, no call runs as one it counted ({@link Nesting}), so calls
   * skip looking.
   */
  private volatile boolean nestable;

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
    Object reference = early.remove(beanName);
    if (reference != null && InterfaceCalls.wraps(reference, bean)) {
      return bean; // advised as its early reference, which Spring exposes in its place
    }
    return advise(bean, beanName);
  }

  /**
   * Checks and advises, as {@link #postProcessAfterInitialization} does, the early reference to a
   * bean in a circular reference, which the bean that needs it is given before the bean is
   * initialized, perhaps as the proxy another post-processor made early too (an auto-proxy
   * creator's): calls through it are limited, and the bean's initialization leaves it as it is, so
   * that Spring exposes that reference.
   *
   * @throws IllegalArgumentException as {@link #postProcessAfterInitialization} does
   */
  @Override
  public Object getEarlyBeanReference(Object bean, String beanName) {
    Object reference = advise(bean, beanName);
    early.put(beanName, reference);
    return reference;
  }

  private Object advise(Object bean, String beanName) {
    Set<String> names = shown;
    if (names != null) {
      // A factory bean is shown under the name of what it makes, which is shown when it is made.
      names.add(
          bean instanceof FactoryBean<?> ? BeanFactory.FACTORY_BEAN_PREFIX + beanName : beanName);
    }
    String where = "bean '" + beanName + "'";
    if (bean instanceof AopInfrastructureBean) {
      if (!(bean instanceof ScopedObject)) {
        // A scoped proxy's calls run on its target, a bean of its own, advised when it is made.
        StartUpChecks.checkInfrastructure(where, bean);
      }
      return super.postProcessAfterInitialization(bean, beanName);
    }
    Class<?> implementer = InterfaceCalls.implementer(bean);
    if (InterfaceCalls.exposesUnimplemented(bean, implementer)) {
      return adviseInterfaces(bean, where, implementer);
    }
    Class<?> type = AopUtils.getTargetClass(bean);
    if (!isEligible(type)) {
      return super.postProcessAfterInitialization(bean, beanName);
    }
    Map<Method, RateLimit> found = MethodRules.annotated(type);
    found.forEach((method, annotation) -> rules.ofBean(where, type, method, annotation));
    Object proxy = super.postProcessAfterInitialization(bean, beanName);
    ProxyReach.check(
        where, type, proxy, found.keySet(), proxy == bean && AopUtils.isAopProxy(bean));
    return proxy;
  }

  /**
   * Advises {@code bean}, an interface-based proxy that exposes interfaces its target class ({@code
   * implementer}, null if none) does not implement, as {@link InterfaceCalls} says: through an
   * advisor of its own, put first in the proxy's chain (a Spring Data repository's own interceptors
   * run the queries and do not proceed), or, if the proxy cannot take one, in a proxy around it.
   */
  private Object adviseInterfaces(Object bean, String where, Class<?> implementer) {
    Class<?>[] interfaces = AopProxyUtils.proxiedUserInterfaces(bean);
    Map<Method, Method> counted = InterfaceCalls.limited(where, interfaces, implementer);
    if (implementer == null) {
      ProxyReach.checkHidden(where, bean, counted.values());
    }
    Set<Method> found = new LinkedHashSet<>(counted.values());
    if (implementer != null) {
      found.addAll(MethodRules.annotated(implementer).keySet());
    }
    if (found.isEmpty()) {
      return bean;
    }
    Map<Method, LimitedMethod> calls = new HashMap<>();
    Map<Method, Nesting.Mark> marks = new HashMap<>();
    counted.forEach(
        (called, method) -> {
          LimitedMethod limited = rules.ofInterface(where, implementer, method);
          calls.put(called, limited);
          marks.put(called, new Nesting.Mark(this, limited.declaration()));
        });
    nestable = true;
    Advisor advisor =
        new DefaultPointcutAdvisor(
            InterfaceCalls.pointcut(calls.keySet()),
            (MethodInterceptor)
                invocation -> {
                  LimitedMethod limited = calls.get(invocation.getMethod());
                  return limited == null
                      ? invocation.proceed()
                      : call(
                          limited,
                          invocation,
                          InterfaceCalls.innermost(invocation.getThis()),
                          marks.get(invocation.getMethod()));
                });
    Object proxy;
    if (bean instanceof Advised advised && !advised.isFrozen()) {
      advised.addAdvisor(0, advisor);
      proxy = bean;
    } else {
      ProxyFactory factory = new ProxyFactory();
      factory.setTarget(bean);
      factory.setInterfaces(interfaces);
      factory.addAdvisor(advisor);
      ClassLoader loader = getProxyClassLoader();
      if (loader instanceof SmartClassLoader smart && loader != bean.getClass().getClassLoader()) {
        loader = smart.getOriginalClassLoader();
      }
      proxy = factory.getProxy(loader);
    }
    ProxyReach.check(where, implementer, proxy, found);
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
   * The proxies a bean {@code name} of class {@code type}, not made yet, may be called through
   * ({@link ProxyForecast}).
   */
  private List<ProxyForecast.Kind> proxyKinds(Class<?> type, String name) {
    return ProxyForecast.kinds(this, beanFactory, type, name, config -> interfaces(type, config));
  }

  /**
   * The interfaces of a proxy made as {@code config} (this post-processor's or another's) says for
   * a bean of class {@code type}, or null if it is class-based (as this post-processor's is for a
   * controller).
   */
  private Class<?>[] interfaces(Class<?> type, ProxyConfig config) {
    ProxyFactory factory = new ProxyFactory();
    factory.copyFrom(config);
    if (config == this && LimitedMethods.controller(type)) {
      factory.setProxyTargetClass(true);
    }
    if (!factory.isProxyTargetClass()) {
      evaluateProxyInterfaces(type, factory);
    }
    return factory.isProxyTargetClass() ? null : factory.getProxiedInterfaces();
  }

  /** Keeps {@code factory}, whose beans are checked once its singletons all exist. */
  @Override
  public void setBeanFactory(BeanFactory factory) {
    if (factory instanceof ConfigurableListableBeanFactory configurable) {
      beanFactory = configurable;
    }
  }

  /**
   * Checks that no singleton the post-processor was never shown has a {@link RateLimit} method,
   * checks the methods of the beans not made yet as their creation will, and creates the limiter of
   * every method checked so far.
   *
   * @throws IllegalArgumentException naming the bean, the method and why if such a singleton has
   *     one, or a bean not made yet a bad one, or if the factory rejects a rule
   */
  @Override
  public void afterSingletonsInstantiated() {
    Set<String> names = shown;
    shown = null;
    if (beanFactory != null && names != null) {
      StartUpChecks.checkUnseen(beanFactory, names, this);
      StartUpChecks.checkUncreated(beanFactory, names, rules, this::proxyKinds);
    }
    Resolved backend = resolved();
    for (LimitedMethod limited : rules.all()) {
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
    LimitedMethod limited = rules.get(method);
    if (limited == null) {
      RateLimit annotation = LimitedMethods.annotation(method, type);
      if (annotation == null) {
        return invocation.proceed();
      }
      limited = rules.ofBean("a bean of " + type.getName(), type, method, annotation);
    }
    return call(limited, invocation, target, null);
  }

  /**
   * The answer to a call of {@code limited}'s method on {@code target} (where its fallback runs):
   * decided and run as its return type says; the method runs as a call counted under {@code marked}
   * ({@link Nesting}) unless that is null. A call made while one this post-processor counted under
   * the same declaration runs on this thread is not counted again; only an application with an
   * interface-based proxy that counts calls itself pays for looking.
   */
  private Object call(
      LimitedMethod limited, MethodInvocation invocation, Object target, Nesting.Mark marked)
      throws Throwable {
    if (nestable && Nesting.inside(this, limited.declaration())) {
      return invocation.proceed();
    }
    Resolved backend = resolved();
    EnforcementCore<Object[]> core = limited.core(backend.factory(), backend.listener());
    switch (limited.kind()) {
      case STAGE:
        return limited.stage(core, invocation, target, marked);
      case MONO:
        return ReactiveCalls.mono(limited, core, invocation, target, marked);
      case FLUX:
        return ReactiveCalls.flux(limited, core, invocation, target, marked);
      case PLAIN:
      default:
        Object[] args = invocation.getArguments();
        EnforcementCore.Outcome outcome = limited.decide(core, args);
        return outcome.allowed()
            ? LimitedMethod.plain(limited, invocation, outcome.settlement(), marked)
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
}
