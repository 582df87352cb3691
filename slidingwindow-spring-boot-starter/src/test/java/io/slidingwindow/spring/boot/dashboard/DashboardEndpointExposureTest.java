package io.slidingwindow.spring.boot.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.FakeTicker;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The {@code slidingwindow} endpoint follows Spring Boot's exposure rules: a real Tomcat with the
 * actuator and the default properties answers 404 for it (only {@code health} is exposed), and
 * neither the endpoint nor its recording listener exists; the context runner checks the properties
 * that expose it or turn it off.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = DashboardEndpointExposureTest.App.class,
    properties = {
      "spring.application.name=shop",
      "server.address=127.0.0.1",
      "slidingwindow.http.rules.api.paths=/api/**",
      "slidingwindow.http.rules.api.methods=GET",
      "slidingwindow.http.rules.api.key=header:X-Api-Key",
      "slidingwindow.http.rules.api.limits[0].permits=2",
      "slidingwindow.http.rules.api.limits[0].window=1m",
      "slidingwindow.http.rules.trial.paths=/trial",
      "slidingwindow.http.rules.trial.dry-run=true",
      "slidingwindow.http.rules.trial.limits[0].permits=1",
      "slidingwindow.http.rules.trial.limits[0].window=10s",
    })
class DashboardEndpointExposureTest {

  @SpringBootApplication
  static class App {
    @Bean
    FakeTicker ticker() {
      return new FakeTicker();
    }

    @RestController
    static class Api {
      @GetMapping({"/api/a", "/trial"})
      String ok() {
        return "ok";
      }
    }
  }

  @LocalServerPort int port;
  @Autowired ApplicationContext context;

  private final WebApplicationContextRunner runner =
      new WebApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  EndpointAutoConfiguration.class,
                  WebEndpointAutoConfiguration.class,
                  SlidingWindowEndpointAutoConfiguration.class));

  @Test
  void endpoint_defaultExposure_notServedAndNothingRecorded() throws Exception {
    DashboardFeedChecks checks = new DashboardFeedChecks(port);
    checks.sendTraffic();
    assertThat(checks.get("/actuator/health", null).statusCode())
        .as("the actuator answers (503: Spring Data Redis's indicator finds no Redis here)")
        .isIn(200, 503);
    assertThat(checks.get("/actuator/slidingwindow", null).statusCode()).isEqualTo(404);
    assertThat(checks.get("/actuator/slidingwindow/index.html", null).statusCode()).isEqualTo(404);
    assertThat(checks.get("/actuator/slidingwindow/dashboard/dashboard.js", null).statusCode())
        .isEqualTo(404);
    assertThat(context.getBeansOfType(SlidingWindowEndpoint.class)).isEmpty();
    assertThat(context.getBeansOfType(DashboardRateLimitListener.class)).isEmpty();
  }

  @Test
  void endpoint_exposedOverTheWeb_createdWithItsListener() {
    runner
        .withPropertyValues("management.endpoints.web.exposure.include=slidingwindow")
        .run(
            app -> {
              assertThat(app).hasSingleBean(SlidingWindowEndpoint.class);
              assertThat(app).hasSingleBean(DashboardRateLimitListener.class);
            });
  }

  @Test
  void endpoint_exposedButAccessNone_notCreated() {
    runner
        .withPropertyValues(
            "management.endpoints.web.exposure.include=*",
            // The runner's environment converts enums strictly; an application's accepts "none".
            "management.endpoint.slidingwindow.access=NONE")
        .run(
            app -> {
              assertThat(app).doesNotHaveBean(SlidingWindowEndpoint.class);
              assertThat(app).doesNotHaveBean(SlidingWindowPageWebExtension.class);
              assertThat(app).doesNotHaveBean(DashboardRateLimitListener.class);
            });
  }

  @Test
  void endpoint_exposedOverJmx_created() {
    runner
        .withPropertyValues(
            "spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=slidingwindow")
        .run(app -> assertThat(app).hasSingleBean(SlidingWindowEndpoint.class));
  }

  @Test
  void endpoint_notExposed_notCreated() {
    runner.run(app -> assertThat(app).doesNotHaveBean(SlidingWindowEndpoint.class));
  }
}
