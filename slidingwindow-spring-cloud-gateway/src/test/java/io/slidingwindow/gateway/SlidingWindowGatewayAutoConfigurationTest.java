package io.slidingwindow.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.http.RateLimiterFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter;

class SlidingWindowGatewayAutoConfigurationTest {

  private final ReactiveWebApplicationContextRunner runner =
      new ReactiveWebApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(SlidingWindowGatewayAutoConfiguration.class));

  @Test
  void gatewayOnClassPath_registersTheLimiterByItsName() {
    runner.run(
        context -> {
          assertThat(context).hasSingleBean(SlidingWindowRateLimiter.class);
          assertThat(context).hasBean("slidingWindowRateLimiter");
        });
  }

  @Test
  void disabled_registersNothing() {
    runner
        .withPropertyValues("slidingwindow.gateway.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean(SlidingWindowRateLimiter.class));
  }

  @Test
  void gatewayAbsent_registersNothing() {
    runner
        .withClassLoader(new FilteredClassLoader(AbstractRateLimiter.class))
        .run(context -> assertThat(context).doesNotHaveBean(SlidingWindowRateLimiter.class));
  }

  @Test
  void badTimeout_stopsStartUpNamingTheProperty() {
    runner
        .withPropertyValues("slidingwindow.gateway.timeout=0s")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining(
                        "slidingwindow.gateway.timeout: timeout must be positive"));
  }

  @Test
  void badMaxKeys_stopsStartUpNamingTheProperty() {
    runner
        .withPropertyValues("slidingwindow.gateway.max-keys-per-route=0")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining("slidingwindow.gateway.max-keys-per-route: maxKeys"));
  }

  @Test
  void applicationFactory_buildsEachRoutesLimiter() {
    List<String> created = new ArrayList<>();
    RateLimiterFactory factory =
        (ruleName, limits, countRefused) -> {
          created.add(ruleName);
          KeyedRateLimiter<String> limiter = KeyedRateLimiter.builder().limits(limits).build();
          return limiter;
        };
    runner
        .withBean(RateLimiterFactory.class, () -> factory)
        .run(
            context -> {
              SlidingWindowRateLimiter limiter = context.getBean(SlidingWindowRateLimiter.class);
              limiter
                  .getConfig()
                  .put("r", new SlidingWindowRateLimiter.Config().limit(1, Duration.ofMinutes(1)));
              assertThat(limiter.isAllowed("r", "k").block(Duration.ofSeconds(5)).isAllowed())
                  .isTrue();
              assertThat(created).containsExactly("gateway.r");
            });
  }
}
