package io.slidingwindow.spring.method;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.spring.RateLimitExceededException;
import java.lang.reflect.Proxy;
import java.security.ProtectionDomain;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
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
                "no interface it implements declares the method"))) {
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
