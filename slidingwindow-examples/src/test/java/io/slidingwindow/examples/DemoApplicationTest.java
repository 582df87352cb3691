package io.slidingwindow.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.FakeTicker;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;

/** The demo API as shipped (its application.yml), on a random port, with a fake clock. */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = "management.server.port=0")
class DemoApplicationTest {

  @TestConfiguration
  static class Clock {
    @Bean
    FakeTicker ticker() {
      return new FakeTicker();
    }
  }

  @LocalServerPort int port;
  @Autowired FakeTicker ticker;

  private final HttpClient client =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  private HttpResponse<String> send(String method, String path, String... headers)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .method(method, HttpRequest.BodyPublishers.noBody());
    if (headers.length > 0) {
      request.headers(headers);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void quotes_sixthCallWithinTenSeconds_isRefusedUntilTheWindowSlides() throws Exception {
    for (int i = 0; i < 5; i++) {
      assertThat(send("GET", "/api/quotes").statusCode()).isEqualTo(200);
    }
    HttpResponse<String> refused = send("GET", "/api/quotes");
    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(refused.headers().firstValue("Retry-After")).hasValue("11");
    assertThat(refused.headers().firstValue("RateLimit-Policy"))
        .hasValue("\"quotes-10s\";q=5;w=10, \"quotes-60s\";q=20;w=60");
    ticker.advance(Duration.ofSeconds(11));
    assertThat(send("GET", "/api/quotes").statusCode()).isEqualTo(200);
  }

  @Test
  void login_penaltyMode_keepsRefusingWhileTheClientKeepsTrying() throws Exception {
    for (int i = 0; i < 3; i++) {
      assertThat(send("POST", "/api/login").statusCode()).isEqualTo(200);
    }
    // Each refused attempt is counted, so a client trying every 15 s keeps at least 3 attempts in
    // every minute and stays refused; only granted calls counting, it would get in at 60 s.
    for (int i = 0; i < 8; i++) {
      assertThat(send("POST", "/api/login").statusCode())
          .as("attempt at %d s", 15 * i)
          .isEqualTo(429);
      ticker.advance(Duration.ofSeconds(15));
    }
    ticker.advance(Duration.ofSeconds(61));
    assertThat(send("POST", "/api/login").statusCode()).isEqualTo(200);
  }

  @Test
  void reports_issuedApiKeys_eachHaveTheirPlansQuota() throws Exception {
    ticker.advance(Duration.ofSeconds(11)); // whatever other tests spent has left the 10 s window
    for (int i = 0; i < 5; i++) {
      assertThat(send("GET", "/api/reports/" + i, "X-Api-Key", "demo-key-1").statusCode())
          .as("call %d on plan free", i)
          .isEqualTo(200);
    }
    assertThat(send("GET", "/api/reports/5", "X-Api-Key", "demo-key-1").statusCode())
        .isEqualTo(429);
    assertThat(send("GET", "/api/reports/5", "X-Api-Key", "demo-key-2").statusCode())
        .isEqualTo(200);
    assertThat(send("GET", "/api/reports/5").statusCode())
        .as("the address's own quota")
        .isEqualTo(200);
  }

  @Test
  void search_dryRun_neverRefuses() throws Exception {
    for (int i = 0; i < 5; i++) {
      assertThat(send("GET", "/api/search").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void startupMessage_namesTheUrlAndACurlHint() {
    assertThat(DemoApplication.startupMessage(8080, "8090"))
        .contains("listening on http://localhost:8080")
        .contains("curl")
        .contains("http://localhost:8080/api/quotes")
        .contains("http://127.0.0.1:8090/actuator/slidingwindow/index.html");
  }
}
