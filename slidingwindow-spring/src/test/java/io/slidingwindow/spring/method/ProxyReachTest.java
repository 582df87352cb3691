package io.slidingwindow.spring.method;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.spring.RateLimitExceededException;
import java.lang.reflect.Proxy;
import java.security.ProtectionDomain;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.core.PriorityOrdered;
import org.springframework.core.SmartClassLoader;

/**
 * {@code @RateLimit} on a method that the bean's proxy cannot intercept stops start-up, naming the
 * bean, the method and why; a method the proxy does intercept is limited.
 */
class ProxyReachTest {

  /** A final limited method: a class-based proxy cannot override it. */
  public static class FinalMethod {
    @RateLimit(limits = "1/1h")
    public final String call() {
      return "x";
    }
  }

  /** A static limited method: no proxy sees its calls. */
  public static class StaticMethod {
    @RateLimit(limits = "1/1h")
    public static String call() {
      return "x";
    }
  }

  /** A private limited method, called from within. */
  public static class PrivateMethod {
    public String outer() {
      return call();
    }

    @RateLimit(limits = "1/1h")
    private String call() {
      return "x";
    }
  }

  /** An interface of a bean. */
  public interface Greeter {
    String greet(String name);
  }

  /** A bean with a limited method that its interface lacks, and one it has. */
  public static class GreeterBean implements Greeter {
    @Override
    @RateLimit(limits = "1/1h")
    public String greet(String name) {
      return "hello " + name;
    }

    @RateLimit(limits = "1/1h")
    public String call() {
      return "x";
    }
  }

  /** A bean limited only on the method of its interface. */
  public static class InterfaceOnly implements Greeter {
    @Override
    @RateLimit(limits = "1/1h")
    public String greet(String name) {
      return "hi " + name;
    }
  }

  /** A bean with a package-private limited method, and a public one. */
  public static class PackagePrivate {
    @RateLimit(limits = "1/1h")
    String call() {
      return "x";
    }

    @RateLimit(limits = "1/1h")
    public String open() {
      return "open";
    }
  }

  /** A bean of Spring's AOP infrastructure, which no post-processor proxies. */
  public static class Infrastructure implements AopInfrastructureBean {
    @RateLimit(limits = "1/1h")
    public String call() {
      return "x";
    }
  }

  /** A limited bean that a post-processor needs, and so made before the rate limits are. */
  public static class Needed {
    @RateLimit(limits = "1/1h")
    public String call() {
      return "x";
    }
  }

  /** A post-processor, made and registered first, that needs {@link Needed}. */
  public static class Needing implements BeanPostProcessor, PriorityOrdered {
    final Needed needed;

    Needing(Needed needed) {
      this.needed = needed;
    }

    @Override
    public int getOrder() {
      return 0;
    }
  }

  /** Declares {@link Needing}. */
  public static class NeedingConfig {
    @Bean
    public static Needing needing(Needed needed) {
      return new Needing(needed);
    }
  }

  @Test
  void start_methodTheProxyCannotIntercept_failsNamingTheBeanTheMethodAndWhy() {
    record Case(MethodContexts contexts, Class<?> bean, String beanName, String why) {}
    for (Case c :
        List.of(
            new Case(
                new MethodContexts().classProxies(), FinalMethod.class, "finalMethod", "final"),
            new Case(new MethodContexts(), FinalMethod.class, "finalMethod", "final"),
            new Case(new MethodContexts(), StaticMethod.class, "staticMethod", "static"),
            new Case(
                new MethodContexts().classProxies(), StaticMethod.class, "staticMethod", "static"),
            new Case(new MethodContexts(), PrivateMethod.class, "privateMethod", "private"),
            new Case(
                new MethodContexts().classProxies(),
                PrivateMethod.class,
                "privateMethod",
                "private"),
            new Case(
                new MethodContexts(),
                GreeterBean.class,
                "greeterBean",
                "no interface it implements declares the method"),
            new Case(
                new MethodContexts(),
                Infrastructure.class,
                "infrastructure",
                "AopInfrastructureBean, which Spring's post-processors never proxy"),
            new Case(
                new MethodContexts().classProxies(),
                Infrastructure.class,
                "infrastructure",
                "AopInfrastructureBean, which Spring's post-processors never proxy"))) {
      assertThatThrownBy(() -> c.contexts().start(c.bean()).close())
          .as(c.bean().getSimpleName())
          .rootCause()
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("bean '" + c.beanName() + "'")
          .hasMessageContaining(c.bean().getName() + ".call()")
          .hasMessageContaining("would never be applied")
          .hasMessageContaining(c.why());
    }
  }

  /** A post-processor, ordered, made with the others of its kind before any is registered. */
  public static class OrderedNeeding implements BeanPostProcessor, Ordered {
    @Override
    public int getOrder() {
      return 0;
    }
  }

  /**
   * Declares a post-processor with a method that is not static, so the configuration, and the
   * limited bean it is given, are made with it.
   */
  public static class NeedingInstanceConfig {
    final Needed needed;

    public NeedingInstanceConfig(Needed needed) {
      this.needed = needed;
    }

    @Bean
    public OrderedNeeding needing() {
      return new OrderedNeeding();
    }
  }

  @ParameterizedTest
  @ValueSource(classes = {NeedingConfig.class, NeedingInstanceConfig.class})
  void start_limitedBeanMadeBeforeThePostProcessor_failsNamingTheBeanAndWhy(Class<?> config) {
    MethodContexts contexts = new MethodContexts().classProxies();

    assertThatThrownBy(() -> contexts.start(Needed.class, config).close())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bean 'needed'")
        .hasMessageContaining(Needed.class.getName() + ".call()")
        .hasMessageContaining("would never be applied")
        .hasMessageContaining("made before the @RateLimit post-processor was registered");
  }

  /**
   * A singleton registered ready-made (a test's mock of a limited bean, say) is left as it is: it
   * was never the post-processor's to proxy.
   */
  @Test
  void start_limitedBeanRegisteredReadyMade_startsAsItIs() {
    MethodContexts contexts = new MethodContexts().classProxies();
    contexts.readyMade.put("ready", new Needed());

    try (AnnotationConfigApplicationContext context = contexts.start()) {
      Needed ready = context.getBean(Needed.class);
      assertThat(ready.call()).isEqualTo("x");
      assertThat(ready.call()).isEqualTo("x");
    }
  }

  @Test
  void interfaceProxy_methodOfTheInterface_limited() {
    try (AnnotationConfigApplicationContext context =
        new MethodContexts().start(InterfaceOnly.class)) {
      Greeter greeter = context.getBean(Greeter.class);
      assertThat(Proxy.isProxyClass(greeter.getClass())).isTrue();

      assertThat(greeter.greet("ann")).isEqualTo("hi ann");

      assertThatThrownBy(() -> greeter.greet("ann")).isInstanceOf(RateLimitExceededException.class);
    }
  }

  @Test
  void classProxy_methodOutsideTheInterfaces_limited() {
    try (AnnotationConfigApplicationContext context =
        new MethodContexts().classProxies().start(GreeterBean.class)) {
      GreeterBean bean = context.getBean(GreeterBean.class);

      assertThat(bean.call()).isEqualTo("x");

      assertThatThrownBy(bean::call).isInstanceOf(RateLimitExceededException.class);
    }
  }

  @Test
  void classProxy_packagePrivateMethodInTheSameClassLoader_limited() {
    try (AnnotationConfigApplicationContext context =
        new MethodContexts().classProxies().start(PackagePrivate.class)) {
      PackagePrivate bean = context.getBean(PackagePrivate.class);

      assertThat(bean.call()).isEqualTo("x");

      assertThatThrownBy(bean::call).isInstanceOf(RateLimitExceededException.class);
    }
  }

  /**
   * A class loader that has Spring define the proxy classes in it, apart from their targets (as a
   * reloading class loader of a development tool may).
   */
  public static final class DefiningLoader extends ClassLoader implements SmartClassLoader {
    DefiningLoader(ClassLoader parent) {
      super(parent);
    }

    @Override
    public Class<?> publicDefineClass(String name, byte[] bytes, ProtectionDomain domain) {
      return defineClass(name, bytes, 0, bytes.length, domain);
    }
  }

  @Test
  void classProxy_packagePrivateMethodWithTheProxyInAnotherClassLoader_failsStartUp() {
    MethodContexts contexts = new MethodContexts().classProxies();
    contexts.classLoader = new DefiningLoader(getClass().getClassLoader());

    assertThatThrownBy(() -> contexts.start(PackagePrivate.class).close())
        .rootCause()
        .hasMessageContaining("bean 'packagePrivate'")
        .hasMessageContaining("PackagePrivate.call()")
        .hasMessageContaining("package-private")
        .hasMessageContaining("another class loader");
  }
}
