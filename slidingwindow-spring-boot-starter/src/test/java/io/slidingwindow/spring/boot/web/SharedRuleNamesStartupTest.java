package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Limit;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.servlet.RateLimitEnforcer;
import io.slidingwindow.servlet.RateLimitFilter;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.embedded.tomcat.TomcatServletWebServerFactory;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * Two enforcers in service with a rule of the same name (the starter's, from {@code
 * slidingwindow.http.rules}, and a filter of the application's own over rules it built): on one
 * Redis their limiters share keys, so start-up warns, naming the rule and both enforcers. A filter
 * over the starter's enforcer bean is no second enforcer, and start-up says nothing. A real Tomcat
 * on a loopback port.
 */
@ExtendWith(OutputCaptureExtension.class)
class SharedRuleNamesStartupTest {

  private static final String WARNING = "rules of the same name in more than one enforcer";

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean
    TomcatServletWebServerFactory tomcat() {
      return new TomcatServletWebServerFactory();
    }
  }

  /** A filter of the application's own, over rules it built, one named as the starter's. */
  static class OwnRules {
    @Bean
    RateLimitFilter ownFilter(RateLimiterFactory limiters) {
      return new RateLimitFilter(
          RateLimitEnforcer.builder()
              .limiterFactory(limiters)
              .rule(
                  HttpRule.builder("shared")
                      .path("/own/**")
                      .limit(Limit.of(5, Duration.ofMinutes(1)))
                      .build())
              .build());
    }
  }

  /** A filter of the application's own over the starter's enforcer bean. */
  static class OverTheBean {
    @Bean
    RateLimitFilter ownFilter(RateLimitEnforcer enforcer) {
      return new RateLimitFilter(enforcer);
    }
  }

  private static ConfigurableApplicationContext start(Class<?> extra) {
    return new SpringApplicationBuilder(App.class, extra)
        .properties(
            "spring.main.web-application-type=servlet",
            "spring.main.banner-mode=off",
            "server.address=127.0.0.1",
            "server.port=0",
            "slidingwindow.http.rules.shared.paths=/api/**",
            "slidingwindow.http.rules.shared.limits[0].permits=5",
            "slidingwindow.http.rules.shared.limits[0].window=1m")
        .run();
  }

  @Test
  void startup_twoEnforcersWithARuleOfTheSameName_warnsNamingTheRuleAndBoth(CapturedOutput output) {
    try (ConfigurableApplicationContext app = start(OwnRules.class)) {
      assertThat(output.getOut() + output.getErr())
          .contains(WARNING)
          .contains("'shared' (")
          .contains("RateLimitEnforcer bean 'slidingWindowRateLimitEnforcer'")
          .contains("RateLimitFilter bean 'ownFilter'");
    }
  }

  @Test
  void startup_aFilterOverTheStartersEnforcerBean_saysNothing(CapturedOutput output) {
    try (ConfigurableApplicationContext app = start(OverTheBean.class)) {
      assertThat(app.getBeansOfType(RateLimitFilter.class)).hasSize(1);
      assertThat(output.getOut() + output.getErr()).doesNotContain(WARNING);
    }
  }

  @Test
  void sharedNames_distinctNames_saysNothing() {
    HttpRule a = HttpRule.builder("a").limit(Limit.of(1, Duration.ofMinutes(1))).build();
    HttpRule b = HttpRule.builder("b").limit(Limit.of(1, Duration.ofMinutes(1))).build();
    assertThat(
            HandlerPaths.sharedNames(
                List.of(
                    new HandlerPaths.Served("one", List.of(a)),
                    new HandlerPaths.Served("two", List.of(b)))))
        .isEmpty();
  }
}
