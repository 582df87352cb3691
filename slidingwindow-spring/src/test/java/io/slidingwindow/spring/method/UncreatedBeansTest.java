package io.slidingwindow.spring.method;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.spring.RateLimitExceededException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.context.annotation.Scope;
import reactor.core.publisher.Mono;

/**
 * The {@code @RateLimit} methods of beans that are not made while the application starts (lazy
 * singletons, prototypes, a Spring Data repository that no bean uses) are checked when it starts,
 * as their creation will check them: a bad one stops start-up, naming the bean, the method and the
 * attribute, rather than failing the first call; a good one is limited once the bean is made.
 */
class UncreatedBeansTest {

  /** A lazy bean whose limit does not parse. */
  @Lazy
  public static class LazyBadLimit {
    @RateLimit(limits = "often")
    public String call() {
      return "x";
    }
  }

  /** A prototype whose fallback is missing. */
  @Scope(ConfigurableBeanFactory.SCOPE_PROTOTYPE)
  public static class PrototypeMissingFallback {
    @RateLimit(limits = "1/1h", fallbackMethod = "nowhere")
    public String call() {
      return "x";
    }
  }

  /** A lazy bean whose key names no argument. */
  @Lazy
  public static class LazyBadKey {
    @RateLimit(limits = "1/1h", key = "#nobody")
    public String call(String somebody) {
      return somebody;
    }
  }

  /** A lazy bean whose limited method is final, which a class-based proxy cannot override. */
  @Lazy
  public static class LazyFinal {
    @RateLimit(limits = "1/1h")
    public final String call() {
      return "x";
    }
  }

  /** A lazy bean that takes a rule name another bean's method has. */
  @Lazy
  public static class LazyTakenName {
    @RateLimit(limits = "1/1h", name = "Quotes.plain")
    public String call() {
      return "x";
    }
  }

  @Test
  void start_badAnnotationOfABeanNotMadeYet_failsNamingTheBeanTheMethodAndTheAttribute() {
    record Case(Class<?> bean, String beanName, String detail) {}
    for (Case c :
        List.of(
            new Case(LazyBadLimit.class, "lazyBadLimit", "limits[0]"),
            new Case(
                PrototypeMissingFallback.class,
                "prototypeMissingFallback",
                "fallbackMethod 'nowhere'"),
            new Case(LazyBadKey.class, "lazyBadKey", "#nobody"),
            new Case(LazyFinal.class, "lazyFinal", "the method is final"),
            new Case(LazyTakenName.class, "lazyTakenName", "rule names must be unique"))) {
      assertThatThrownBy(
              () -> new MethodContexts().classProxies().start(Quotes.class, c.bean()).close())
          .as(c.bean().getSimpleName())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("bean '" + c.beanName() + "'")
          .hasMessageContaining(c.bean().getName() + ".call(")
          .hasMessageContaining(c.detail());
    }
  }

  /** Limited on its interface, which declares a wider return type than the class that serves it. */
  public interface Feed {
    @RateLimit(limits = "1/1h")
    Publisher<String> next();
  }

  /** Serves {@link Feed} with a {@code Mono}, which a limit on a call can take. */
  public static class MonoFeed implements Feed {
    @Override
    public Mono<String> next() {
      return Mono.just("news");
    }
  }

  /** Declares a lazy {@link Feed}, known only by its interface until it is made. */
  @Configuration(proxyBeanMethods = false)
  public static class LazyFeedConfiguration {
    @Bean
    @Lazy
    Feed feed() {
      return new MonoFeed();
    }
  }

  /**
   * A bean known only by a supertype whose method declares a type a limit cannot take ({@code
   * Publisher}) starts: the class made serves a {@code Mono}, which its creation checks, as it does
   * for the same bean made at once.
   */
  @Test
  void lazyBeanDeclaredByAWiderType_startsAndIsLimitedOnceMade() {
    try (AnnotationConfigApplicationContext context =
        new MethodContexts().start(LazyFeedConfiguration.class)) {
      Feed feed = context.getBean(Feed.class);
      assertThat(Mono.from(feed.next()).block()).isEqualTo("news");
      assertThatThrownBy(() -> Mono.from(feed.next()).block())
          .isInstanceOf(RateLimitExceededException.class);
    }
  }

  /** A lazy bean, limited once it is made. */
  @Lazy
  public static class LazyQuotes extends Quotes {}

  /** A prototype, limited once it is made, one limit for all its instances. */
  @Scope(ConfigurableBeanFactory.SCOPE_PROTOTYPE)
  public static class PrototypeQuotes extends Quotes {}

  @Test
  void beansNotMadeYet_startAndAreLimitedOnceMade() {
    MethodContexts contexts = new MethodContexts().classProxies();
    try (AnnotationConfigApplicationContext context =
        contexts.start(LazyQuotes.class, PrototypeQuotes.class)) {
      Quotes lazy = context.getBean(LazyQuotes.class);
      lazy.plain("a");
      lazy.plain("a");
      assertThatThrownBy(() -> lazy.plain("a")).isInstanceOf(RateLimitExceededException.class);

      context.getBean(PrototypeQuotes.class).order(new Quotes.Order("c"));
      context.getBean(PrototypeQuotes.class).order(new Quotes.Order("c"));
      assertThatThrownBy(() -> context.getBean(PrototypeQuotes.class).order(new Quotes.Order("c")))
          .isInstanceOf(RateLimitExceededException.class);
    }
  }

  @Test
  void start_badAnnotationOfARepositoryNoBeanUses_failsNamingTheBeanTheMethodAndTheAttribute() {
    record Case(Class<?> configuration, String holder, String detail) {}
    for (Case c :
        List.of(
            new Case(RepositoryMethodsTest.BadLimit.Config.class, "BadLimit", "limits[0]"),
            new Case(RepositoryMethodsTest.BadKey.Config.class, "BadKey", "#nobody"),
            new Case(
                RepositoryMethodsTest.Fallback.Config.class,
                "Fallback",
                "fallbackMethod 'findNone' cannot be applied"))) {
      assertThatThrownBy(() -> new MethodContexts().start(c.configuration()).close())
          .as(c.holder())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("bean 'repositoryMethodsTest." + c.holder() + ".Repository'")
          .hasMessageContaining(".findByStatus(String)")
          .hasMessageContaining(c.detail());
    }
  }

  @Test
  void repositoryNoBeanUses_startsAndIsLimitedOnceLookedUp() {
    MethodContexts contexts = new MethodContexts();
    try (AnnotationConfigApplicationContext context =
        contexts.start(RepositoryMethodsTest.Orders.class)) {
      RepositoryMethodsTest.OrderRepository orders =
          context.getBean(RepositoryMethodsTest.OrderRepository.class);

      assertThat(orders.findByStatus("open")).isEmpty();
      assertThatThrownBy(() -> orders.findByStatus("open"))
          .isInstanceOf(RateLimitExceededException.class);
    }
  }
}
