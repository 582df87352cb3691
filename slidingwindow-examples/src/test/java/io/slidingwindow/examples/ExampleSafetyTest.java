package io.slidingwindow.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.testkit.http.RawHttp;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;

/**
 * The demo as a stranger finds it, with real HTTP from several loopback addresses: actuator gives
 * the application port health only, the management port (loopback) the rest; one address cannot
 * spend the product budget of everyone; the dashboard shows no key.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = "management.server.port=0")
class ExampleSafetyTest {

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

  private static RawHttp.Response get(String from, int port, String target, String... headers)
      throws Exception {
    return RawHttp.send(InetAddress.getByName(from), port, "GET", target, List.of(headers));
  }

  @Test
  void applicationPort_actuatorAnswersHealthOnly() throws Exception {
    assertThat(get("127.0.0.1", port, "/actuator/health").status()).isEqualTo(200);
    for (String hidden :
        List.of(
            "/actuator/metrics",
            "/actuator/metrics/slidingwindow.http.requests",
            "/actuator/slidingwindow",
            "/actuator/slidingwindow/index.html",
            "/actuator",
            "/actuator/env",
            "/actuator/health/../metrics",
            "/actuator/%6detrics",
            "/actuator;x/metrics",
            "//actuator/metrics")) {
      assertThat(get("127.0.0.1", port, hidden).status()).as(hidden).isIn(400, 401, 403, 404);
    }
    assertThat(get("127.0.0.1", managementPort, "/actuator/metrics").status()).isEqualTo(200);
    assertThat(get("127.0.0.1", managementPort, "/actuator/slidingwindow").status()).isEqualTo(200);
  }

  @Test
  void productBudget_oneAddressGetsItsShareOnly_othersStillGetIn() throws Exception {
    int granted = 0;
    for (int i = 0; i < 150; i++) {
      granted += get("127.0.0.1", port, "/v1/product/" + i).status() == 200 ? 1 : 0;
    }
    assertThat(granted).as("one address: its share of the 2 s budget").isEqualTo(100);
    for (int client = 2; client <= 5; client++) {
      assertThat(get("127.0.0." + client, port, "/v1/product/1").status())
          .as("client 127.0.0.%d", client)
          .isEqualTo(200);
    }
  }

  @Test
  void dashboard_showsKeysAsHashesNeverAsSent() throws Exception {
    for (int i = 0; i < 7; i++) { // demo-key-1 is on plan free: 5 per 10 s
      get("127.0.0.9", port, "/api/reports/1", "X-Api-Key", "demo-key-1");
    }
    HttpResponse<String> feed =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create(
                            "http://127.0.0.1:" + managementPort + "/actuator/slidingwindow"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(feed.statusCode()).isEqualTo(200);
    JsonNode top = new ObjectMapper().readTree(feed.body()).get("topRefused");
    assertThat(top).isNotEmpty();
    assertThat(top.toString()).doesNotContain("demo-key-1").doesNotContain("127.0.0.9");
    assertThat(top.get(0).get("descriptor").asText()).matches("custom:#[0-9a-f]{12}");
  }
}
