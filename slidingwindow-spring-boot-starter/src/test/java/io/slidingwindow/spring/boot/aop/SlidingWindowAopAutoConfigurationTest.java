package io.slidingwindow.spring.boot.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.slidingwindow.Ticker;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.spring.RateLimitExceededException;
import io.slidingwindow.spring.boot.web.MicrometerRateLimitListener;
import io.slidingwindow.spring.boot.web.SlidingWindowAutoConfiguration;
import io.slidingwindow.spring.method.RateLimitMethodPostProcessor;
import io.slidingwindow.testkit.FakeTicker;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.cache.CacheManager;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.cache.concurrent.ConcurrentMapCacheManager;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;

/** {@code @RateLimit} on bean methods as the starter wires it, in real application contexts. */
class SlidingWindowAopAutoConfigurationTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(SlidingWindowAopAutoConfiguration.class))
          .withUserConfiguration(Beans.class);

  @Configuration(proxyBeanMethods = false)
  static class Beans {
    @Bean
    FakeTicker ticker() {
      return new FakeTicker();
    }

    @Bean
    Greetings greetings() {
      return new Greetings();
    }

    @Bean
    MeterRegistry meterRegistry() {
      return new SimpleMeterRegistry();
    }
  }

  /** A bean whose fallback takes no refusal. */
  public static class BadFallback {
    @RateLimit(limits = "1/1s", fallbackMethod = "later")
    public String call(String a) {
      return a;
    }

    public String later(String a) {
      return a;
    }
  }

  @Test
  void nonWebApplication_limitsBeanMethodsInMemoryOnTheTickerBean() {
    runner.run(
        context -> {
          assertThat(context).hasSingleBean(RateLimitMethodPostProcessor.class);
          assertThat(context).hasBean("slidingWindowMethodRateLimiterFactory");
          Greetings greetings = context.getBean(Greetings.class);
          FakeTicker ticker = context.getBean(FakeTicker.class);
          assertThat(greetings.greet("ann")).isEqualTo("hello ann");
          assertThat(greetings.greet("ann")).isEqualTo("hello ann");
          assertThatThrownBy(() -> greetings.greet("ann"))
              .isInstanceOfSatisfying(
                  RateLimitExceededException.class,
                  refusal -> assertThat(refusal.rule()).isEqualTo("greetings"));
          assertThat(greetings.greet("bob")).isEqualTo("hello bob");

          ticker.advance(Duration.ofMillis(10_010));
          assertThat(greetings.greet("ann")).isEqualTo("hello ann");

          MeterRegistry meters = context.getBean(MeterRegistry.class);
          assertThat(
                  meters
                      .find(MicrometerRateLimitListener.METRIC)
                      .tag("rule", "greetings")
                      .counters())
              .extracting(
                  counter -> counter.getId().getTag("outcome") + "=" + (long) counter.count())
              .contains("allowed=4", "refused=1");
        });
  }

  @Test
  void reactiveMethodWithFallback_refusedAtSubscription_answersWithTheFallback() {
    runner.run(
        context -> {
          Greetings greetings = context.getBean(Greetings.class);
          greetings.greetLater("ann").block();
          greetings.greetLater("ann").block();
          assertThat(greetings.greetLater("ann").block()).isEqualTo("later, ann, in 10 s");
        });
  }

  /**
   * An application context whose parent has the starter's post-processor (a Spring Boot application
   * built with a parent) applies the annotations of its own beans: a post-processor works only in
   * the context that holds it.
   */
  @Test
  void childContext_limitsItsOwnBeansWithAPostProcessorOfItsOwn() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(SlidingWindowAopAutoConfiguration.class))
        .withBean(FakeTicker.class)
        .run(
            parent ->
                new ApplicationContextRunner()
                    .withParent(parent)
                    .withConfiguration(
                        AutoConfigurations.of(SlidingWindowAopAutoConfiguration.class))
                    .withBean(Greetings.class)
                    .run(
                        child -> {
                          Greetings greetings = child.getBean(Greetings.class);
                          greetings.greet("ann");
                          greetings.greet("ann");
                          assertThatThrownBy(() -> greetings.greet("ann"))
                              .isInstanceOf(RateLimitExceededException.class);
                          assertThat(child.getBeansOfType(RateLimitMethodPostProcessor.class))
                              .hasSize(1);
                        }));
  }

  /** A bean whose limited methods are run on an executor, and cached. */
  public static class Reports {
    @Async
    @RateLimit(limits = "2/10s", name = "report-runs")
    public void run(String report) {}

    @Cacheable("reports")
    @RateLimit(limits = "2/10s", name = "report-reads")
    public String read(String report) {
      return "report " + report;
    }
  }

  /**
   * An application with {@code @EnableAsync} and {@code @EnableCaching}, and the starter imported
   * as Spring Boot imports auto-configurations: after the application's own configuration.
   */
  @Configuration(proxyBeanMethods = false)
  @EnableAsync
  @EnableCaching
  @ImportAutoConfiguration(SlidingWindowAopAutoConfiguration.class)
  static class AsyncAndCaching {
    @Bean(destroyMethod = "shutdownNow")
    ExecutorService taskExecutor() {
      return Executors.newSingleThreadExecutor();
    }

    @Bean
    CacheManager cacheManager() {
      return new ConcurrentMapCacheManager();
    }

    @Bean
    Reports reports() {
      return new Reports();
    }
  }

  /**
   * With Spring Boot's order of post-processors, the limit comes before {@code @Async} and {@code
   * Cacheable}: an {@code @Async} call is decided when it is made, its refusal thrown to the
   * caller, and a cache hit counts as a call.
   */
  @Test
  void asyncAndCachedMethods_decidedWhenCalled_cacheHitsCount() {
    new ApplicationContextRunner()
        .withUserConfiguration(AsyncAndCaching.class)
        .run(
            context -> {
              Reports reports = context.getBean(Reports.class);
              reports.run("daily");
              reports.run("daily");
              assertThatThrownBy(() -> reports.run("daily"))
                  .isInstanceOfSatisfying(
                      RateLimitExceededException.class,
                      refusal -> assertThat(refusal.rule()).isEqualTo("report-runs"));

              assertThat(reports.read("daily")).isEqualTo("report daily");
              assertThat(reports.read("daily")).as("from the cache").isEqualTo("report daily");
              assertThatThrownBy(() -> reports.read("daily"))
                  .isInstanceOfSatisfying(
                      RateLimitExceededException.class,
                      refusal -> assertThat(refusal.rule()).isEqualTo("report-reads"));
            });
  }

  @Test
  void enabledFalse_leavesBeansUnadvised() {
    runner
        .withPropertyValues("slidingwindow.aop.enabled=false")
        .run(
            context -> {
              assertThat(context).doesNotHaveBean(RateLimitMethodPostProcessor.class);
              Greetings greetings = context.getBean(Greetings.class);
              assertThat(AopUtils.isAopProxy(greetings)).isFalse();
              for (int i = 0; i < 5; i++) {
                assertThat(greetings.greet("ann")).isEqualTo("hello ann");
              }
            });
  }

  @Test
  void badFallback_stopsStartUpNamingTheBeanTheMethodAndTheAttribute() {
    runner
        .withBean("badFallback", BadFallback.class)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("bean 'badFallback'")
                    .hasMessageContaining(BadFallback.class.getName() + ".call(String)")
                    .hasMessageContaining("fallbackMethod 'later'"));
  }

  @Test
  void servletApplication_usesTheWebConfigurationsBackend() {
    new WebApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                SlidingWindowAutoConfiguration.class, SlidingWindowAopAutoConfiguration.class))
        .withUserConfiguration(Beans.class)
        .run(
            context -> {
              assertThat(context).hasSingleBean(RateLimiterFactory.class);
              assertThat(context).hasBean("slidingWindowRateLimiterFactory");
              assertThat(context).hasSingleBean(Ticker.class);
              Greetings greetings = context.getBean(Greetings.class);
              greetings.greet("ann");
              greetings.greet("ann");
              assertThatThrownBy(() -> greetings.greet("ann"))
                  .isInstanceOf(RateLimitExceededException.class);
            });
  }
}
