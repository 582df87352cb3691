package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.slidingwindow.http.PathFirewall;
import io.slidingwindow.http.PathFirewall.Allowance;
import io.slidingwindow.servlet.RateLimitEnforcer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

/** {@code slidingwindow.http.path-firewall.*} reaches the enforcer of the filter's rules. */
class PathFirewallPropertiesTest {

  private static final String RULE = "slidingwindow.http.rules.product";

  private final WebApplicationContextRunner runner =
      new WebApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(SlidingWindowAutoConfiguration.class))
          .withPropertyValues(
              RULE + ".paths=/v1/product/**",
              RULE + ".key=global",
              RULE + ".limits[0].permits=1",
              RULE + ".limits[0].window=1m");

  /** Runs one GET of the raw URI {@code uri} through {@code enforcer}; the status it set. */
  private static MockHttpServletResponse get(RateLimitEnforcer enforcer, String uri)
      throws Exception {
    MockHttpServletResponse response = new MockHttpServletResponse();
    enforcer.enforce(new MockHttpServletRequest("GET", uri), response);
    return response;
  }

  @Test
  void pathFirewall_byDefault_isStrictAndAnswers400() {
    runner.run(
        context -> {
          assertThat(context.getBean(PathFirewall.class)).isSameAs(PathFirewall.strict());
          RateLimitEnforcer enforcer = context.getBean(RateLimitEnforcer.class);
          MockHttpServletResponse refused = get(enforcer, "/v1/product/..;");
          assertThat(refused.getStatus()).isEqualTo(400);
          assertThat(refused.getContentType()).startsWith("application/problem+json");
          assertThat(refused.getContentAsString())
              .contains("\"status\":400")
              .doesNotContain("product");
          // Nothing was counted: the one permit is still there.
          assertThat(get(enforcer, "/v1/product/1").getStatus()).isEqualTo(200);
          assertThat(get(enforcer, "/v1/product/2").getStatus()).isEqualTo(429);
        });
  }

  @Test
  void pathFirewall_refusal_isCountedByTheMicrometerListener() {
    runner
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .run(
            context -> {
              RateLimitEnforcer enforcer = context.getBean(RateLimitEnforcer.class);
              MeterRegistry registry = context.getBean(MeterRegistry.class);
              assertThat(get(enforcer, "/v1/product/..;").getStatus()).isEqualTo(400);
              assertThat(get(enforcer, "/v1/product/%2e%2e").getStatus()).isEqualTo(400);
              assertThat(get(enforcer, "/v1/product/1").getStatus()).isEqualTo(200);

              assertThat(
                      registry
                          .get(MicrometerRateLimitListener.REJECTED_PATHS_METRIC)
                          .counter()
                          .count())
                  .isEqualTo(2);
            });
  }

  @Test
  void pathFirewall_disabled_letsSpellingsThroughAndRulesCountThem() {
    runner
        .withPropertyValues("slidingwindow.http.path-firewall.enabled=false")
        .run(
            context -> {
              assertThat(context.getBean(PathFirewall.class)).isSameAs(PathFirewall.off());
              RateLimitEnforcer enforcer = context.getBean(RateLimitEnforcer.class);
              assertThat(get(enforcer, "/v1/product/..;").getStatus()).isEqualTo(200);
              assertThat(get(enforcer, "/v1/product/%2e%2e").getStatus())
                  .as("the first spelling was counted")
                  .isEqualTo(429);
            });
  }

  @Test
  void pathFirewall_allow_relaxesOnlyTheNamedSpellings() {
    runner
        .withPropertyValues("slidingwindow.http.path-firewall.allow=semicolon,double-slash")
        .run(
            context -> {
              assertThat(context.getBean(PathFirewall.class).allowed())
                  .containsExactly(Allowance.SEMICOLON, Allowance.DOUBLE_SLASH);
              RateLimitEnforcer enforcer = context.getBean(RateLimitEnforcer.class);
              assertThat(get(enforcer, "/v1/product/..;").getStatus())
                  .as("dot segments stay refused")
                  .isEqualTo(400);
              assertThat(get(enforcer, "/v1/product/%2e").getStatus()).isEqualTo(400);
              assertThat(get(enforcer, "/v1/product/1;jsessionid=abc").getStatus()).isEqualTo(200);
              assertThat(get(enforcer, "/v1//product/2").getStatus()).isEqualTo(429);
            });
  }

  @Test
  void pathFirewall_unknownAllowance_failsStartupNamingTheProperty() {
    runner
        .withPropertyValues("slidingwindow.http.path-firewall.allow=dots")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(context.getStartupFailure())
                  .hasStackTraceContaining("slidingwindow.http.path-firewall.allow")
                  .rootCause()
                  .hasMessageContaining("dots");
            });
  }

  @Configuration(proxyBeanMethods = false)
  static class UserFirewall {
    @Bean
    PathFirewall myFirewall() {
      return PathFirewall.allowing(Allowance.BACKSLASH);
    }
  }

  @Test
  void userPathFirewall_autoFirewallBacksOffAndTheEnforcerUsesIt() {
    runner
        .withUserConfiguration(UserFirewall.class)
        .run(
            context -> {
              assertThat(context).hasSingleBean(PathFirewall.class);
              assertThat(context.getBean(PathFirewall.class).allowed())
                  .containsExactly(Allowance.BACKSLASH);
              RateLimitEnforcer enforcer = context.getBean(RateLimitEnforcer.class);
              assertThat(get(enforcer, "/v1\\product\\1").getStatus()).isEqualTo(200);
              assertThat(get(enforcer, "/v1/product/1;x").getStatus()).isEqualTo(400);
            });
  }
}
