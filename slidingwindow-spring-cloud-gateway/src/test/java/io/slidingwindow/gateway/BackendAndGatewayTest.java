package io.slidingwindow.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The test backend answers every request, also when the test's look at it throws. */
class BackendAndGatewayTest {

  @Test
  void backend_whenSeenThrows_stillAnswersAndClosesTheExchange() throws Exception {
    try (BackendAndGateway servers =
        new BackendAndGateway(
            exchange -> {
              throw new IllegalStateException("a failing assertion in a test's handler");
            })) {
      HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      HttpRequest request =
          HttpRequest.newBuilder(URI.create(servers.backendUri() + "/x"))
              .timeout(Duration.ofSeconds(5))
              .build();
      assertThat(client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode())
          .isEqualTo(200);
    }
  }
}
