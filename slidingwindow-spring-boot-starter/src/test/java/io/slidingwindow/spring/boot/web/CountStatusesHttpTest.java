package io.slidingwindow.spring.boot.web;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.springframework.boot.test.context.SpringBootTest;

/** {@link CountStatusesScenarios} in a servlet application on embedded Tomcat. */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = CountStatusesScenarios.App.class,
    properties = "spring.main.web-application-type=servlet")
class CountStatusesHttpTest extends CountStatusesScenarios {

  @Override
  void awaitAnnotatedSettled(int exchanges) {
    await().atMost(Duration.ofSeconds(10)).until(() -> ANNOTATED_COMPLETED.get() >= exchanges);
  }
}
