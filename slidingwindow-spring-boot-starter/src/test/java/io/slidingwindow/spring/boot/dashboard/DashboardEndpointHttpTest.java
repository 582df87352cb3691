package io.slidingwindow.spring.boot.dashboard;

import io.slidingwindow.testkit.FakeTicker;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The {@code slidingwindow} actuator endpoint of a servlet application on a real embedded Tomcat,
 * exposed over HTTP by {@code management.endpoints.web.exposure.include}, read with a real HTTP
 * client after real traffic.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = DashboardEndpointHttpTest.App.class,
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
      "management.endpoints.web.exposure.include=health,slidingwindow",
    })
class DashboardEndpointHttpTest {

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

  @Test
  void endpoint_afterTraffic_answersTheDashboardFeedOfTheApplicationsRules() throws Exception {
    DashboardFeedChecks checks = new DashboardFeedChecks(port);
    checks.sendTraffic();
    checks.checkFeed();
  }

  @Test
  void endpoint_pageAndItsFiles_servedWithTheirTypesAndUnknownNamesRefused() throws Exception {
    new DashboardFeedChecks(port).checkPage("/actuator/slidingwindow", "../slidingwindow");
  }
}
