package io.slidingwindow.spring.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.slidingwindow.Ticker;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.spring.RateLimitExceededException;
import io.slidingwindow.spring.method.RateLimitMethodPostProcessor;
import io.slidingwindow.spring.web.MicrometerRateLimitListener;
import io.slidingwindow.spring.web.SlidingWindowAutoConfiguration;
import io.slidingwindow.testkit.FakeTicker;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

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
