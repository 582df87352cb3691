package io.slidingwindow.spring.boot.dashboard;

import io.slidingwindow.testkit.FakeTicker;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.embedded.netty.NettyReactiveWebServerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The {@code slidingwindow} actuator endpoint of a reactive application on Reactor Netty, exposed
 * over HTTP, read with a real HTTP client after real traffic; BlockHound (installed in this JVM)
 * would turn a blocking call of the recording listener or the endpoint into a 500.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = DashboardEndpointWebFluxTest.App.class,
    properties = {
      "spring.main.web-application-type=reactive",
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
      "management.endpoints.web.exposure.include=slidingwindow",
    })
class DashboardEndpointWebFluxTest {

  @SpringBootApplication
  static class App {
    /** Reactor Netty, although Tomcat and Jetty are on the test class path too. */
    @Bean
    NettyReactiveWebServerFactory nettyReactiveWebServerFactory() {
      return new NettyReactiveWebServerFactory();
    }

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
