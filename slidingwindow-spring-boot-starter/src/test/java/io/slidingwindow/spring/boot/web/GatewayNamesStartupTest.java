package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.spring.RateLimit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.web.servlet.DispatcherServletAutoConfiguration;
import org.springframework.boot.autoconfigure.web.servlet.WebMvcAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A filter rule or a {@code @RateLimit} named {@code gateway.<x>} stops start-up, naming itself:
 * that is the name of gateway route {@code x}'s rule, and the two would share their windows in
 * Redis.
 */
class GatewayNamesStartupTest {

  private final WebApplicationContextRunner runner =
      new WebApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  SlidingWindowAutoConfiguration.class,
                  WebMvcAutoConfiguration.class,
                  DispatcherServletAutoConfiguration.class));

  @RestController
  static class GatewayNamedController {
    @GetMapping("/x")
    @RateLimit(limits = "5/1s", name = "gateway.x")
    String x() {
      return "x";
    }
  }

  @Test
  void filterRuleNamedLikeARoute_failsAtStartupNamingIt() {
    runner
        .withPropertyValues(
            "slidingwindow.http.rules[gateway.x].limits[0].permits=1",
            "slidingwindow.http.rules[gateway.x].limits[0].window=1m")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(messages(context.getStartupFailure()))
                  .contains("slidingwindow.http.rules.gateway.x")
                  .contains("must not start with 'gateway.'")
                  .contains("was 'gateway.x'");
            });
  }

  @Test
  void annotationNamedLikeARoute_failsAtStartupNamingIt() {
    runner
        .withUserConfiguration(GatewayNamedController.class)
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(messages(context.getStartupFailure()))
                  .contains("@RateLimit on " + GatewayNamedController.class.getName() + ".x()")
                  .contains("must not start with 'gateway.'")
                  .contains("was 'gateway.x'");
            });
  }

  private static String messages(Throwable failure) {
    StringBuilder messages = new StringBuilder();
    for (Throwable t = failure; t != null; t = t.getCause()) {
      messages.append(t.getMessage()).append('\n');
    }
    return messages.toString();
  }
}
