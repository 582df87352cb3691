package io.slidingwindow.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.slidingwindow.FailurePolicy;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.testkit.FailingLimiter;
import io.slidingwindow.testkit.FakeTicker;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.cloud.gateway.event.FilterArgsEvent;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter.Response;
import org.springframework.cloud.gateway.support.ConfigurationService;

class SlidingWindowRateLimiterBuilderTest {

  private final FakeTicker ticker = new FakeTicker();
  private final RateLimiterFactory inMemory = RateLimiterFactory.inMemory(ticker, 1000);

  private static Response decide(SlidingWindowRateLimiter limiter, String route, String key) {
    return limiter.isAllowed(route, key).block(Duration.ofSeconds(5));
  }

  @Test
  void constructors_noneIsPublic() {
    assertThat(SlidingWindowRateLimiter.class.getConstructors()).isEmpty();
    assertThat(SlidingWindowRateLimiter.class.getDeclaredConstructors())
        .allMatch(
            c -> !Modifier.isPublic(c.getModifiers()) && !Modifier.isProtected(c.getModifiers()));
    assertThat(Arrays.stream(SlidingWindowRateLimiter.Builder.class.getConstructors())).isEmpty();
  }

  @Test
  void setters_nullArguments_refusedNamingTheParameter() {
    SlidingWindowRateLimiter.Builder builder = SlidingWindowRateLimiter.builder();
    assertThatThrownBy(() -> builder.factory(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("factory must not be null");
    assertThatThrownBy(() -> builder.onFailure(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("onFailure must not be null");
    assertThatThrownBy(() -> builder.configurationService(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("configurationService must not be null");
    assertThatThrownBy(() -> builder.meterRegistry(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("meterRegistry must not be null");
    assertThatThrownBy(() -> builder.timeout(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("timeout must be positive, was null");
  }

  @Test
  void timeout_notPositive_refused() {
    assertThatThrownBy(() -> SlidingWindowRateLimiter.builder().timeout(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("timeout must be positive, was PT0S");
    assertThatThrownBy(() -> SlidingWindowRateLimiter.builder().timeout(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("timeout must be positive, was PT-0.001S");
  }

  @Test
  void build_withoutFactory_refused() {
    assertThatThrownBy(() -> SlidingWindowRateLimiter.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("factory must be set");
  }

  @Test
  void build_factoryOnly_sendsHeadersAndDecidesLocallyWhenTheBackendFails() {
    RateLimiterFactory failing = (rule, limits, countRefused) -> new FailingLimiter();
    SlidingWindowRateLimiter limiter = SlidingWindowRateLimiter.builder().factory(failing).build();
    limiter
        .getConfig()
        .put("r", new SlidingWindowRateLimiter.Config().limit(1, Duration.ofHours(1)));

    Response first = decide(limiter, "r", "k");
    Response second = decide(limiter, "r", "k");

    // The default policy is LOCAL: the route's own limit, in memory, with its headers.
    assertThat(first.isAllowed()).isTrue();
    assertThat(first.getHeaders()).containsEntry("RateLimit-Policy", "\"r\";q=1;w=3600");
    assertThat(second.isAllowed()).isFalse();
  }

  @Test
  void build_everySetting_appliesIt() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    RateLimiterFactory failing = (rule, limits, countRefused) -> new FailingLimiter();
    SlidingWindowRateLimiter limiter =
        SlidingWindowRateLimiter.builder()
            .factory(failing)
            .timeout(Duration.ofSeconds(2))
            .onFailure(FailurePolicy.REFUSE)
            .headers(false)
            .meterRegistry(registry)
            .build();
    limiter
        .getConfig()
        .put("r", new SlidingWindowRateLimiter.Config().limit(5, Duration.ofHours(1)));

    Response answer = decide(limiter, "r", "k");

    assertThat(answer.isAllowed()).isFalse();
    assertThat(answer.getHeaders()).containsEntry("Retry-After", "1");
    assertThat(registry.find(FailureReport.FAILURES).tag("route", "r").counter()).isNotNull();
  }

  @Test
  void build_headersOff_grantsWithoutHeaders() {
    SlidingWindowRateLimiter limiter =
        SlidingWindowRateLimiter.builder().factory(inMemory).headers(false).build();
    limiter
        .getConfig()
        .put("r", new SlidingWindowRateLimiter.Config().limit(5, Duration.ofHours(1)));

    Response answer = decide(limiter, "r", "k");

    assertThat(answer.isAllowed()).isTrue();
    assertThat(answer.getHeaders()).isEmpty();
  }

  @Test
  void build_withConfigurationService_bindsRouteArguments() {
    SlidingWindowRateLimiter limiter =
        SlidingWindowRateLimiter.builder()
            .factory(inMemory)
            .configurationService(
                new ConfigurationService(new DefaultListableBeanFactory(), () -> null, () -> null))
            .build();

    limiter.onApplicationEvent(
        new FilterArgsEvent(
            this,
            "orders",
            Map.of(
                "sliding-window-rate-limiter.limits[0].permits", "1",
                "sliding-window-rate-limiter.limits[0].window", "10s")));

    assertThat(decide(limiter, "orders", "k").isAllowed()).isTrue();
    assertThat(decide(limiter, "orders", "k").isAllowed()).isFalse();
  }

  @Test
  void builtLimiters_areIndependent() {
    SlidingWindowRateLimiter.Builder builder = SlidingWindowRateLimiter.builder().factory(inMemory);
    SlidingWindowRateLimiter one = builder.build();
    SlidingWindowRateLimiter other = builder.headers(false).build();
    one.getConfig().put("r", new SlidingWindowRateLimiter.Config().limit(1, Duration.ofHours(1)));
    other.getConfig().put("r", new SlidingWindowRateLimiter.Config().limit(1, Duration.ofHours(1)));

    assertThat(decide(one, "r", "k").getHeaders()).containsKey("RateLimit-Policy");
    assertThat(decide(other, "r", "k").getHeaders()).isEmpty();
  }
}
