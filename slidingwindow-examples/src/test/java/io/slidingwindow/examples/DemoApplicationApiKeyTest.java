package io.slidingwindow.examples;

import static org.assertj.core.api.Assertions.assertThat;

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
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;

/**
 * The demo's reports endpoint against clients that forge or rotate API keys. The demo runs as
 * shipped, except that the test client (127.0.0.1) is trusted as a proxy, so that X-Forwarded-For
 * can stand for several clients.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"slidingwindow.http.trusted-proxies=127.0.0.1", "management.server.port=0"})
class DemoApplicationApiKeyTest {

  private static final String VICTIM = "198.51.100.7";
  private static final String ATTACKER = "203.0.113.66";

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

  @BeforeEach
  void emptyTheWindows() {
    ticker.advance(Duration.ofSeconds(11)); // reports: 2 per 10 s for a caller without a plan
  }

  private int report(String from, String apiKey) throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/reports/1"))
            .header("X-Forwarded-For", from);
    if (apiKey != null) {
      request.header("X-Api-Key", apiKey);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString()).statusCode();
  }

  @Test
  void forgedApiKeyEqualToAnAddress_cannotDrainThatAddressesQuota() throws Exception {
    for (String forged : new String[] {VICTIM, "ip:" + VICTIM, "::ffff:" + VICTIM}) {
      for (int i = 0; i < 3; i++) {
        report(ATTACKER, forged);
      }
    }
    assertThat(report(ATTACKER, VICTIM)).as("the attacker spent its own quota").isEqualTo(429);
    assertThat(report(VICTIM, null)).as("the victim's quota is whole").isEqualTo(200);
    assertThat(report(VICTIM, null)).isEqualTo(200);
    assertThat(report(VICTIM, null)).isEqualTo(429);
  }

  @Test
  void rotatingUnknownApiKeys_getNoFreshQuota() throws Exception {
    assertThat(report(ATTACKER, "guess-0")).isEqualTo(200);
    assertThat(report(ATTACKER, "guess-1")).isEqualTo(200);
    for (int i = 2; i < 50; i++) {
      assertThat(report(ATTACKER, "guess-" + i)).as("unknown key %d", i).isEqualTo(429);
    }
    assertThat(report(ATTACKER, null)).isEqualTo(429);
    // An issued key has a quota of its own, wherever it is sent from.
    // An issued key has the quota of its plan (demo-key-1: free, 5 per 10 s), wherever it is sent
    // from.
    assertThat(report(ATTACKER, "demo-key-1")).isEqualTo(200);
    for (int i = 0; i < 4; i++) {
      assertThat(report(VICTIM, "demo-key-1")).isEqualTo(200);
    }
    assertThat(report(VICTIM, "demo-key-1")).isEqualTo(429);
    assertThat(report(VICTIM, null)).as("the victim's address is its own").isEqualTo(200);
  }

  @Test
  void ipv6ClientRotatingInsideItsSlash64_getsNoFreshQuota() throws Exception {
    assertThat(report("2001:db8:42:1::1", null)).isEqualTo(200);
    assertThat(report("2001:db8:42:1:ffff::2", null)).isEqualTo(200);
    assertThat(report("2001:db8:42:1:abcd:ef01:2345:6789", null)).isEqualTo(429);
    assertThat(report("2001:db8:42:2::1", null)).as("another /64").isEqualTo(200);
  }
}
