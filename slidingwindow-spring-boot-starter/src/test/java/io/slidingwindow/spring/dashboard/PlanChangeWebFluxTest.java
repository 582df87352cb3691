package io.slidingwindow.spring.dashboard;

import io.slidingwindow.testkit.FakeTicker;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * {@link PlanChangeScenarios} on WebFlux, the counts in memory, on a fake clock that never moves.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = PlanChangeWebFluxTest.App.class,
    properties = {"spring.main.web-application-type=reactive"})
// Named here too, so that the scans of other tests' applications leave this one's App out.
@ExtendWith(OutputCaptureExtension.class)
class PlanChangeWebFluxTest extends PlanChangeScenarios {

  @SpringBootApplication
  @Import({PlanChangeScenarios.Plans.class, PlanChangeScenarios.Api.class})
  static class App {
    @Bean
    FakeTicker ticker() {
      return new FakeTicker();
    }
  }
}
