package io.slidingwindow.spring.boot.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.FakeTicker;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The dashboard page follows the management base path and the endpoint's path mapping on a real
 * Tomcat: served under {@code /manage/rates/}, it polls {@code ../rates}, which is the feed.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = DashboardPagePathTest.App.class,
    properties = {
      "spring.application.name=shop",
      "server.address=127.0.0.1",
      "slidingwindow.http.rules.api.paths=/api/**",
      "slidingwindow.http.rules.api.key=header:X-Api-Key",
      "slidingwindow.http.rules.api.limits[0].permits=2",
      "slidingwindow.http.rules.api.limits[0].window=1m",
      "management.endpoints.web.exposure.include=slidingwindow",
      "management.endpoints.web.base-path=/manage",
      "management.endpoints.web.path-mapping.slidingwindow=rates",
    })
class DashboardPagePathTest {

  @SpringBootApplication
  static class App {
    @Bean
    FakeTicker ticker() {
      return new FakeTicker();
    }

    @RestController
    static class Api {
      @GetMapping("/api/a")
      String ok() {
        return "ok";
      }
    }
  }

  @LocalServerPort int port;

  @Test
  void page_basePathAndPathMapping_servedThereAndPollsTheFeedRelatively() throws Exception {
    DashboardFeedChecks checks = new DashboardFeedChecks(port);
    checks.checkPage("/manage/rates", "../rates");
    // What the browser resolves ../rates against /manage/rates/index.html to: the feed.
    assertThat(checks.get("/manage/rates", null).body()).contains("\"seconds\"");
    assertThat(checks.get("/actuator/slidingwindow/index.html", null).statusCode()).isEqualTo(404);
  }

  @Test
  void feedUrl_mappedPaths_lastSegmentRelativeToThePage() {
    assertThat(SlidingWindowPageWebExtension.feedUrl("slidingwindow"))
        .isEqualTo("../slidingwindow");
    assertThat(SlidingWindowPageWebExtension.feedUrl("/ops/rates/")).isEqualTo("../rates");
    assertThat(SlidingWindowPageWebExtension.feedUrl("/")).isEqualTo("../slidingwindow");
  }
}
