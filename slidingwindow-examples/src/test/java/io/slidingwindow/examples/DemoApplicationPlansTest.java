package io.slidingwindow.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.slidingwindow.testkit.FakeTicker;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;

/**
 * The demo's plans on {@code /api/reports} (rule {@code reports}), as shipped, over real HTTP:
 * demo-key-1 on free (5 per 10 s), demo-key-2 on pro (20 per 10 s), any other caller 2 per 10 s by
 * address; and the actuator's quota operations on the management port, and only there.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = "management.server.port=0")
class DemoApplicationPlansTest {

  private static final String FREE = "custom:demo-key-1";
  private static final String PRO = "custom:demo-key-2";

  @TestConfiguration
  static class Clock {
    @Bean
    FakeTicker ticker() {
      return new FakeTicker();
    }
  }

  @LocalServerPort int port;
  @LocalManagementPort int managementPort;
  @Autowired FakeTicker ticker;

  private final HttpClient client =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @BeforeEach
  void emptyTheWindows() {
    ticker.advance(Duration.ofSeconds(11));
  }

  private HttpResponse<String> send(int toPort, String method, String path, String... headers)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + toPort + path))
            .method(method, HttpRequest.BodyPublishers.noBody());
    if (headers.length > 0) {
      request.headers(headers);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** How many of {@code calls} reports calls with {@code apiKey} (null: none) are granted. */
  private int granted(String apiKey, int calls) throws IOException, InterruptedException {
    int granted = 0;
    for (int i = 0; i < calls; i++) {
      HttpResponse<String> response =
          apiKey == null
              ? send(port, "GET", "/api/reports")
              : send(port, "GET", "/api/reports/" + i, "X-Api-Key", apiKey);
      assertThat(response.statusCode()).isIn(200, 429);
      granted += response.statusCode() == 200 ? 1 : 0;
    }
    return granted;
  }

  private JsonNode quota(int toPort, String key) throws IOException, InterruptedException {
    HttpResponse<String> response = send(toPort, "GET", "/actuator/slidingwindow/reports/" + key);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return new ObjectMapper().readTree(response.body());
  }

  @Test
  void reports_eachCallerGetsItsPlansLimit() throws Exception {
    assertThat(granted("demo-key-2", 25)).as("pro").isEqualTo(20);
    assertThat(granted("demo-key-1", 8)).as("free").isEqualTo(5);
    assertThat(granted(null, 5)).as("no key: the address's 2").isEqualTo(2);
    assertThat(granted("unissued-key", 3)).as("an unissued key counts as its address").isZero();
  }

  @Test
  void reports_headersTellEachCallerItsOwnPlan() throws Exception {
    HttpResponse<String> pro = send(port, "GET", "/api/reports/1", "X-Api-Key", "demo-key-2");
    assertThat(pro.headers().firstValue("RateLimit-Policy")).contains("\"reports\";q=20;w=10");
    assertThat(pro.headers().firstValue("RateLimit").orElse("")).startsWith("\"reports\";r=19");
    HttpResponse<String> free = send(port, "GET", "/api/reports/1", "X-Api-Key", "demo-key-1");
    assertThat(free.headers().firstValue("RateLimit-Policy")).contains("\"reports\";q=5;w=10");
    HttpResponse<String> none = send(port, "GET", "/api/reports");
    assertThat(none.headers().firstValue("RateLimit-Policy")).contains("\"reports\";q=2;w=10");
  }

  @Test
  void actuator_showsAndResetsOneKey_onTheManagementPort() throws Exception {
    assertThat(granted("demo-key-1", 8)).isEqualTo(5);
    assertThat(granted("demo-key-2", 25)).isEqualTo(20);

    JsonNode spent = quota(managementPort, FREE);
    assertThat(spent.get("plan").asText()).isEqualTo("free");
    JsonNode limit = spent.get("limits").get(0);
    assertThat(limit.get("permits").asLong()).isEqualTo(5);
    assertThat(limit.get("window").asText()).isEqualTo("10s");
    assertThat(limit.get("remaining").asLong()).isZero();
    assertThat(granted("demo-key-1", 1)).as("the peek took nothing, and gave nothing").isZero();

    HttpResponse<String> reset =
        send(managementPort, "DELETE", "/actuator/slidingwindow/reports/" + FREE);
    assertThat(reset.statusCode()).as(reset.body()).isEqualTo(200);

    assertThat(quota(managementPort, FREE).get("limits").get(0).get("remaining").asLong())
        .isEqualTo(5);
    assertThat(granted("demo-key-1", 6)).as("free again after the reset").isEqualTo(5);
    assertThat(granted("demo-key-2", 3)).as("pro stays spent").isZero();
    assertThat(quota(managementPort, PRO).get("limits").get(0).get("remaining").asLong()).isZero();
  }

  @Test
  void actuator_unknownRule_isNotFound() throws Exception {
    HttpResponse<String> response =
        send(managementPort, "GET", "/actuator/slidingwindow/no-such-rule/" + FREE);
    assertThat(response.statusCode()).isEqualTo(404);
  }

  @Test
  void applicationPort_hasNoQuotaOperations() throws Exception {
    assertThat(granted("demo-key-1", 6)).isEqualTo(5);
    for (String method : new String[] {"GET", "DELETE"}) {
      for (String path :
          new String[] {
            "/actuator/slidingwindow/reports/" + FREE, "/actuator/slidingwindow/reports/demo-key-1"
          }) {
        assertThat(send(port, method, path).statusCode())
            .as(method + " " + path)
            .isIn(400, 401, 403, 404, 405);
      }
    }
    assertThat(granted("demo-key-1", 1)).as("no reset reached the limiter").isZero();
  }
}
