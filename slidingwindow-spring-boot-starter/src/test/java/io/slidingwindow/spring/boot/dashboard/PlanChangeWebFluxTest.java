package io.slidingwindow.spring.boot.dashboard;

import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * {@link PlanChangeScenarios} on WebFlux, the counts in memory, on a fake clock that never moves.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = PlanChangeScenarios.InMemoryApp.class,
    properties = "spring.main.web-application-type=reactive")
// Named here too, so that the scans of other tests' applications leave the scenarios' out.
@ExtendWith(OutputCaptureExtension.class)
class PlanChangeWebFluxTest extends PlanChangeScenarios {}
