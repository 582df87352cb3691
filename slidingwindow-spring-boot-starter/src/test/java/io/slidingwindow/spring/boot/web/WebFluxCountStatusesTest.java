package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * {@link CountStatusesScenarios} in a reactive application on Reactor Netty, and an exchange the
 * client gives up on, which counts.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = {CountStatusesScenarios.App.class, RuleTermsScenarios.Netty.class},
    properties = "spring.main.web-application-type=reactive")
class WebFluxCountStatusesTest extends CountStatusesScenarios {

  @Test
  void countStatuses_anExchangeCancelledBeforeItsAnswer_counts() throws Exception {
    int cancelled = CANCELLED.get();
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    HttpRequest hanging =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/cs/h/hang"))
            .timeout(Duration.ofMillis(500))
            .build();

    assertThatThrownBy(() -> client.send(hanging, HttpResponse.BodyHandlers.ofString()))
        .isInstanceOf(HttpTimeoutException.class);
    await().atMost(Duration.ofSeconds(10)).until(() -> CANCELLED.get() > cancelled);

    assertThat(get("/cs/h/login?password=good").statusCode()).isEqualTo(429);
  }
}
