package io.slidingwindow.spring.method;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.spring.RateLimitExceededException;
import java.lang.reflect.Proxy;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.autoproxy.DefaultAdvisorAutoProxyCreator;
import org.springframework.aop.scope.ScopedObject;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.NameMatchMethodPointcutAdvisor;
import org.springframework.beans.factory.config.CustomScopeConfigurer;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.context.annotation.Scope;
import org.springframework.context.annotation.ScopedProxyMode;
import org.springframework.context.support.SimpleThreadScope;
import org.springframework.core.Ordered;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;

/**
 * {@code @RateLimit} on a bean that another post-processor proxies too, before or after this one:
 * an auto-proxy creator ({@code @EnableTransactionManagement}'s; a plain advisor's stands for an
 * aspect's, which works alike), {@code @EnableAsync}'s, a scoped proxy. Start-up passes exactly
 * when the calls are limited: either the (N+1)th call is refused, or start-up stops naming the bean
 * and the method. Contexts are interface-based by default, as a plain Spring application's; {@code
 * classProxies()} is the starter's default.
 */
class OtherProxiesTest {

  /** A transaction manager that only counts the transactions begun. */
  public static final class CountingTransactions extends AbstractPlatformTransactionManager {
    private static final long serialVersionUID = 1L;
    final transient AtomicInteger begun = new AtomicInteger();

    @Override
    protected Object doGetTransaction() {
      return new Object();
    }

    @Override
    protected void doBegin(Object transaction, TransactionDefinition definition) {
      begun.incrementAndGet();
    }

    @Override
    protected void doCommit(DefaultTransactionStatus status) {}

    @Override
    protected void doRollback(DefaultTransactionStatus status) {}
  }

  /** Transactions through interface-based proxies, Spring's default. */
  @Configuration(proxyBeanMethods = false)
  @EnableTransactionManagement
  public static class InterfaceTransactions {
    @Bean
    public CountingTransactions transactionManager() {
      return new CountingTransactions();
    }
  }

  /** Transactions through class-based proxies. */
  @Configuration(proxyBeanMethods = false)
  @EnableTransactionManagement(proxyTargetClass = true)
  public static class ClassTransactions {
    @Bean
    public CountingTransactions transactionManager() {
      return new CountingTransactions();
    }
  }

  /** An interface of the beans. */
  public interface Ledger {
    String post(String entry);
  }

  /** Transactional through its interface, and limited on a method the interface lacks. */
  public static class TxClassOnly implements Ledger {
    @Override
    @Transactional
    public String post(String entry) {
      return entry;
    }

    @RateLimit(limits = "1/1h")
    public String audit() {
      return "audited";
    }
  }

  /** Transactional and limited on the class's method that implements the interface's. */
  public static class TxImplemented implements Ledger {
    @Override
    @Transactional
    @RateLimit(limits = "1/1h")
    public String post(String entry) {
      return entry;
    }
  }

  /** Limited through its interface's method. */
  public interface LimitedLedger {
    @RateLimit(limits = "1/1h")
    String post(String entry);
  }

  /** Transactional, and limited by its interface. */
  public static class TxOnInterface implements LimitedLedger {
    @Override
    @Transactional
    public String post(String entry) {
      return entry;
    }
  }

  /**
   * The creator's class-based proxy comes first and this post-processor advises it, even when its
   * own proxies would be interface-based: the method the interface lacks is limited.
   */
  @Test
  void classBasedTransactionProxy_methodTheInterfaceLacks_limited() {
    for (MethodContexts contexts :
        List.of(new MethodContexts(), new MethodContexts().classProxies())) {
      try (AnnotationConfigApplicationContext context =
          contexts.start(ClassTransactions.class, TxClassOnly.class)) {
        TxClassOnly bean = context.getBean(TxClassOnly.class);
        assertThat(AopUtils.isCglibProxy(bean)).isTrue();

        assertThat(bean.audit()).isEqualTo("audited");

        assertThatThrownBy(bean::audit).isInstanceOf(RateLimitExceededException.class);
      }
    }
  }

  /**
   * The creator's interface-based proxy comes first, even when this post-processor's would be
   * class-based: nothing can call the method the interface lacks through it, so start-up stops,
   * saying that the other post-processor's setting decides.
   */
  @Test
  void interfaceBasedTransactionProxy_methodTheInterfaceLacks_failsStartUp() {
    for (MethodContexts contexts :
        List.of(new MethodContexts(), new MethodContexts().classProxies())) {
      assertThatThrownBy(
              () -> contexts.start(InterfaceTransactions.class, TxClassOnly.class).close())
          .rootCause()
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("bean 'txClassOnly'")
          .hasMessageContaining(TxClassOnly.class.getName() + ".audit()")
          .hasMessageContaining("interface-based")
          .hasMessageContaining("made before the @RateLimit post-processor saw the bean");
    }
  }

  /**
   * On the interface's method or on the class's method that implements it, through the creator's
   * proxy of either kind, the call is limited, and the limit comes before the transaction.
   */
  @Test
  void transactionProxy_methodOfTheInterface_limitedBeforeTheTransaction() {
    for (Class<?> transactions : List.of(InterfaceTransactions.class, ClassTransactions.class)) {
      for (MethodContexts contexts :
          List.of(new MethodContexts(), new MethodContexts().classProxies())) {
        try (AnnotationConfigApplicationContext context =
            contexts.start(transactions, TxImplemented.class, TxOnInterface.class)) {
          Ledger implemented = context.getBean(Ledger.class);
          LimitedLedger onInterface = context.getBean(LimitedLedger.class);
          CountingTransactions counted = context.getBean(CountingTransactions.class);
          assertThat(Proxy.isProxyClass(implemented.getClass()))
              .isEqualTo(transactions == InterfaceTransactions.class);

          assertThat(implemented.post("a")).isEqualTo("a");
          assertThat(onInterface.post("b")).isEqualTo("b");

          assertThatThrownBy(() -> implemented.post("a"))
              .isInstanceOf(RateLimitExceededException.class);
          assertThatThrownBy(() -> onInterface.post("b"))
              .isInstanceOf(RateLimitExceededException.class);
          assertThat(counted.begun).hasValue(2);
        }
      }
    }
  }

  /** A lazy {@link TxClassOnly}. */
  @Lazy
  public static class LazyTxClassOnly extends TxClassOnly {}

  /** A lazy bean that no transaction proxies, limited on a method its interface lacks. */
  @Lazy
  public static class LazyClassOnly implements Ledger {
    @Override
    public String post(String entry) {
      return entry;
    }

    @RateLimit(limits = "1/1h")
    public String audit() {
      return "audited";
    }
  }

  /**
   * A lazy bean is checked at start-up as its creation will check it, and its creation may find a
   * class-based proxy of another post-processor: with interface-based proxies of its own and a
   * class-based creator, this post-processor leaves the interface check to the bean's creation,
   * which finds the creator's proxy and passes, and the call is limited.
   */
  @Test
  void lazyBean_classBasedCreatorAndInterfaceBasedLimits_startsAndIsLimited() {
    try (AnnotationConfigApplicationContext context =
        new MethodContexts().start(ClassTransactions.class, LazyTxClassOnly.class)) {
      LazyTxClassOnly bean = context.getBean(LazyTxClassOnly.class);

      assertThat(bean.audit()).isEqualTo("audited");

      assertThatThrownBy(bean::audit).isInstanceOf(RateLimitExceededException.class);
    }
  }

  /**
   * The same, of a lazy bean the creator does not proxy: its creation finds this post-processor's
   * interface-based proxy, and fails naming the method.
   */
  @Test
  void lazyBean_classBasedCreatorThatDoesNotProxyIt_failsWhenMade() {
    try (AnnotationConfigApplicationContext context =
        new MethodContexts().start(ClassTransactions.class, LazyClassOnly.class)) {
      assertThatThrownBy(() -> context.getBean("lazyClassOnly"))
          .rootCause()
          .hasMessageContaining("bean 'lazyClassOnly'")
          .hasMessageContaining(LazyClassOnly.class.getName() + ".audit()")
          .hasMessageContaining("interface-based");
    }
  }

  /** Without another post-processor, the lazy bean still stops start-up, as before. */
  @Test
  void lazyBean_interfaceBasedLimitsAlone_failsStartUp() {
    assertThatThrownBy(() -> new MethodContexts().start(LazyClassOnly.class).close())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bean 'lazyClassOnly'")
        .hasMessageContaining(LazyClassOnly.class.getName() + ".audit()");
  }

  /** {@code @EnableAsync}, interface-based by default, run before this post-processor. */
  @Configuration(proxyBeanMethods = false)
  @EnableAsync(order = 0)
  public static class AsyncFirst {}

  /** {@code @EnableAsync}, class-based, run before this post-processor. */
  @Configuration(proxyBeanMethods = false)
  @EnableAsync(order = 0, proxyTargetClass = true)
  public static class ClassAsyncFirst {}

  /** An interface of an asynchronous bean. */
  public interface Mailer {
    void send(String to);

    String status();
  }

  /** Asynchronous through its interface, limited on a method it lacks and on one it has. */
  public static class AsyncMailer implements Mailer {
    @Override
    @Async
    public void send(String to) {}

    @Override
    @RateLimit(limits = "1/1h")
    public String status() {
      return "up";
    }

    @RateLimit(limits = "1/1h")
    public String quota() {
      return "q";
    }
  }

  /**
   * In a Spring Boot application {@code @EnableAsync}'s post-processor runs first, and its proxy is
   * interface-based unless told otherwise, whatever {@code spring.aop.proxy-target-class} says: the
   * method the interface lacks stops start-up, and the message says whose setting decides.
   */
  @Test
  void interfaceBasedAsyncProxyFirst_methodTheInterfaceLacks_failsStartUp() {
    assertThatThrownBy(
            () ->
                new MethodContexts()
                    .classProxies()
                    .start(AsyncFirst.class, AsyncMailer.class)
                    .close())
        .rootCause()
        .hasMessageContaining("bean 'asyncMailer'")
        .hasMessageContaining(AsyncMailer.class.getName() + ".quota()")
        .hasMessageContaining("@EnableAsync's");
  }

  /** With a class-based {@code @EnableAsync}, both methods are limited. */
  @Test
  void classBasedAsyncProxyFirst_bothMethods_limited() {
    for (MethodContexts contexts :
        List.of(new MethodContexts(), new MethodContexts().classProxies())) {
      try (AnnotationConfigApplicationContext context =
          contexts.start(ClassAsyncFirst.class, AsyncMailer.class)) {
        AsyncMailer bean = context.getBean(AsyncMailer.class);

        assertThat(bean.quota()).isEqualTo("q");
        assertThat(bean.status()).isEqualTo("up");

        assertThatThrownBy(bean::quota).isInstanceOf(RateLimitExceededException.class);
        assertThatThrownBy(bean::status).isInstanceOf(RateLimitExceededException.class);
      }
    }
  }

  /** How often a {@link LazyFinalMailer} or {@link LazyFinalPlainMailer} ran {@code status}. */
  static final AtomicInteger STATUSES = new AtomicInteger();

  /**
   * A lazy bean, asynchronous through its interface, limited on a final method that implements the
   * interface's.
   */
  @Lazy
  public static class LazyFinalMailer implements Mailer {
    @Override
    @Async
    public void send(String to) {}

    @Override
    @RateLimit(limits = "1/1h")
    public final String status() {
      STATUSES.incrementAndGet();
      return "up";
    }
  }

  /** The same without an {@code @Async} method: {@code @EnableAsync} leaves it alone. */
  @Lazy
  public static class LazyFinalPlainMailer implements Mailer {
    @Override
    public void send(String to) {}

    @Override
    @RateLimit(limits = "1/1h")
    public final String status() {
      STATUSES.incrementAndGet();
      return "up";
    }
  }

  /**
   * An interface-based {@code @EnableAsync} proxy made first reaches a final method through its
   * interface and runs it on the bean itself, behind this post-processor's advice, whatever kind
   * this post-processor's own proxies are: start-up passes, and the second call is refused without
   * running the method.
   */
  @Test
  void lazyBean_interfaceBasedAsyncProxyFirst_finalMethodOfTheInterface_limited() {
    for (MethodContexts contexts :
        List.of(new MethodContexts(), new MethodContexts().classProxies())) {
      try (AnnotationConfigApplicationContext context =
          contexts.start(AsyncFirst.class, LazyFinalMailer.class)) {
        Mailer bean = context.getBean(Mailer.class);
        assertThat(Proxy.isProxyClass(bean.getClass())).isTrue();
        int before = STATUSES.get();

        assertThat(bean.status()).isEqualTo("up");

        assertThatThrownBy(bean::status).isInstanceOf(RateLimitExceededException.class);
        assertThat(STATUSES.get() - before).isEqualTo(1);
      }
    }
  }

  /**
   * A final method truly escapes a class-based proxy, whoever makes it: {@code @EnableAsync}'s
   * class-based one, or this post-processor's when the interface-based {@code @EnableAsync} leaves
   * a bean without {@code @Async} methods alone. The lazy bean stops start-up.
   */
  @Test
  void lazyBean_finalMethodBehindAClassBasedProxy_failsStartUp() {
    Map<String, Runnable> starts = new LinkedHashMap<>();
    starts.put(
        "class-based @EnableAsync, interface-based limits",
        () -> new MethodContexts().start(ClassAsyncFirst.class, LazyFinalMailer.class).close());
    starts.put(
        "class-based @EnableAsync, class-based limits",
        () ->
            new MethodContexts()
                .classProxies()
                .start(ClassAsyncFirst.class, LazyFinalMailer.class)
                .close());
    starts.put(
        "interface-based @EnableAsync that leaves the bean alone, class-based limits",
        () ->
            new MethodContexts()
                .classProxies()
                .start(AsyncFirst.class, LazyFinalPlainMailer.class)
                .close());
    starts.forEach(
        (setting, start) ->
            assertThat(catchThrowable(start::run))
                .as(setting)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(".status()")
                .hasMessageContaining("the method is final"));
  }

  /** Counts the calls that the stand-in aspect advised. */
  static final AtomicInteger TRACED = new AtomicInteger();

  /** An advisor of the {@code post} methods, standing for an aspect's. */
  static NameMatchMethodPointcutAdvisor tracer() {
    NameMatchMethodPointcutAdvisor advisor =
        new NameMatchMethodPointcutAdvisor(
            (MethodInterceptor)
                invocation -> {
                  TRACED.incrementAndGet();
                  return invocation.proceed();
                });
    advisor.setMappedName("post");
    return advisor;
  }

  /** An auto-proxy creator run first, as Spring's are, with its proxies made as {@code set}s. */
  static DefaultAdvisorAutoProxyCreator firstCreator(boolean opaque, boolean classBased) {
    DefaultAdvisorAutoProxyCreator creator = new DefaultAdvisorAutoProxyCreator();
    creator.setOrder(Ordered.HIGHEST_PRECEDENCE);
    creator.setOpaque(opaque);
    creator.setProxyTargetClass(classBased);
    return creator;
  }

  /** A creator whose proxies are frozen: this post-processor cannot add to them. */
  @Configuration(proxyBeanMethods = false)
  public static class FrozenCreator {
    @Bean
    public static DefaultAdvisorAutoProxyCreator creator() {
      DefaultAdvisorAutoProxyCreator creator = firstCreator(false, true);
      creator.setFrozen(true);
      return creator;
    }

    @Bean
    public static NameMatchMethodPointcutAdvisor tracer() {
      return OtherProxiesTest.tracer();
    }
  }

  /** A creator whose interface-based proxies are opaque: not {@link Advised}. */
  @Configuration(proxyBeanMethods = false)
  public static class OpaqueCreator {
    @Bean
    public static DefaultAdvisorAutoProxyCreator creator() {
      return firstCreator(true, false);
    }

    @Bean
    public static NameMatchMethodPointcutAdvisor tracer() {
      return OtherProxiesTest.tracer();
    }
  }

  /** A creator whose class-based proxies are opaque. */
  @Configuration(proxyBeanMethods = false)
  public static class OpaqueClassCreator {
    @Bean
    public static DefaultAdvisorAutoProxyCreator creator() {
      return firstCreator(true, true);
    }

    @Bean
    public static NameMatchMethodPointcutAdvisor tracer() {
      return OtherProxiesTest.tracer();
    }
  }

  /** A creator registered after this post-processor, of the same order: it runs after it. */
  @Configuration(proxyBeanMethods = false)
  public static class LaterCreator {
    @Bean
    public static DefaultAdvisorAutoProxyCreator creator() {
      return new DefaultAdvisorAutoProxyCreator();
    }

    @Bean
    public static NameMatchMethodPointcutAdvisor tracer() {
      return OtherProxiesTest.tracer();
    }
  }

  /** Limited on the class's method that implements the interface's. */
  public static class Plain implements Ledger {
    @Override
    @RateLimit(limits = "1/1h")
    public String post(String entry) {
      return entry;
    }
  }

  /** Limited by its interface's method. */
  public static class PlainOnInterface implements LimitedLedger {
    @Override
    public String post(String entry) {
      return entry;
    }
  }

  /**
   * A proxy this post-processor cannot add to (frozen, or opaque and class-based), which it wraps
   * in its own, or one made after it around its own: the call passes both proxies, and is limited
   * and advised.
   */
  @Test
  void frozenOpaqueClassBasedOrLaterProxy_limitedAndAdvised() {
    for (Class<?> creator :
        List.of(FrozenCreator.class, OpaqueClassCreator.class, LaterCreator.class)) {
      for (MethodContexts contexts :
          List.of(new MethodContexts(), new MethodContexts().classProxies())) {
        int before = TRACED.get();
        try (AnnotationConfigApplicationContext context = contexts.start(creator, Plain.class)) {
          Ledger bean = context.getBean(Ledger.class);

          assertThat(bean.post("a")).as(creator.getSimpleName()).isEqualTo("a");

          assertThatThrownBy(() -> bean.post("a"))
              .as(creator.getSimpleName())
              .isInstanceOf(RateLimitExceededException.class);
          // A later creator's advice runs first, on the refused call too.
          assertThat(TRACED.get() - before)
              .as(creator.getSimpleName())
              .isEqualTo(creator == LaterCreator.class ? 2 : 1);
        }
      }
    }
  }

  /**
   * An opaque interface-based proxy hides its target's class, whose annotation no call would find:
   * start-up stops, naming the bean and the method.
   */
  @Test
  void opaqueInterfaceBasedProxy_annotationOnTheClass_failsStartUp() {
    assertThatThrownBy(() -> new MethodContexts().start(OpaqueCreator.class, Plain.class).close())
        .rootCause()
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bean 'plain'")
        .hasMessageContaining(Plain.class.getName() + ".post(String)")
        .hasMessageContaining("would never be applied")
        .hasMessageContaining("opaque");
  }

  /** The annotation of the proxy's interface is found on every call, and limits it. */
  @Test
  void opaqueInterfaceBasedProxy_annotationOnTheInterface_limited() {
    try (AnnotationConfigApplicationContext context =
        new MethodContexts().start(OpaqueCreator.class, PlainOnInterface.class)) {
      LimitedLedger bean = context.getBean(LimitedLedger.class);

      assertThat(bean.post("a")).isEqualTo("a");

      assertThatThrownBy(() -> bean.post("a")).isInstanceOf(RateLimitExceededException.class);
    }
  }

  /** Defines the scope {@code thread}. */
  @Configuration(proxyBeanMethods = false)
  public static class ThreadScopeConfig {
    @Bean
    public static CustomScopeConfigurer threadScope() {
      CustomScopeConfigurer configurer = new CustomScopeConfigurer();
      configurer.addScope("thread", new SimpleThreadScope());
      return configurer;
    }
  }

  /** A bean of a scope, behind a class-based scoped proxy. */
  @Scope(value = "thread", proxyMode = ScopedProxyMode.TARGET_CLASS)
  public static class ClassScoped {
    @RateLimit(limits = "1/1h")
    public String call() {
      return "s";
    }
  }

  /** A bean of a scope, behind an interface-based scoped proxy. */
  @Scope(value = "thread", proxyMode = ScopedProxyMode.INTERFACES)
  public static class InterfaceScoped implements Ledger {
    @Override
    @RateLimit(limits = "1/1h")
    public String post(String entry) {
      return entry;
    }
  }

  /** A singleton that is given both scoped proxies. */
  public static class ScopedUser {
    final ClassScoped classScoped;
    final Ledger interfaceScoped;

    public ScopedUser(ClassScoped classScoped, Ledger interfaceScoped) {
      this.classScoped = classScoped;
      this.interfaceScoped = interfaceScoped;
    }
  }

  /**
   * A scoped proxy (an {@code AopInfrastructureBean}, as {@code @RequestScope}'s and
   * {@code @SessionScope}'s are) passes each call to the bean of the scope, which this
   * post-processor proxies when the scope makes it: start-up passes and the calls are limited.
   */
  @Test
  void scopedProxy_callsReachTheBeanOfTheScope_limited() {
    for (MethodContexts contexts :
        List.of(new MethodContexts(), new MethodContexts().classProxies())) {
      try (AnnotationConfigApplicationContext context =
          contexts.start(
              ThreadScopeConfig.class,
              ClassScoped.class,
              InterfaceScoped.class,
              ScopedUser.class)) {
        ScopedUser user = context.getBean(ScopedUser.class);
        assertThat(user.classScoped).isInstanceOf(ScopedObject.class);
        assertThat(user.interfaceScoped).isInstanceOf(ScopedObject.class);

        assertThat(user.classScoped.call()).isEqualTo("s");
        assertThat(user.interfaceScoped.post("a")).isEqualTo("a");

        assertThatThrownBy(user.classScoped::call).isInstanceOf(RateLimitExceededException.class);
        assertThatThrownBy(() -> user.interfaceScoped.post("a"))
            .isInstanceOf(RateLimitExceededException.class);
      }
    }
  }
}
