package io.slidingwindow.spring.boot.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.slidingwindow.dashboard.DecisionRecorder;
import io.slidingwindow.testkit.browser.HeadlessChromium;
import io.slidingwindow.testkit.redis.WithoutRedisServer;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The starter's dashboard page, served by the {@code slidingwindow} actuator endpoint of a real
 * Tomcat application, in a real browser (headless Chromium: {@code /usr/bin/chromium}, or {@code
 * -Dchromium.binary=PATH}). With the page open, a client is refused under a key full of markup; the
 * page must load its files and feed through its relative links, draw, list the key as its source
 * and a short hash (never the markup itself), and report no error (a Content-Security-Policy
 * violation or a failed load counts as one).
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = DashboardPageBrowserIT.App.class,
    properties = {
      "spring.application.name=shop",
      "server.address=127.0.0.1",
      "slidingwindow.http.rules.api.paths=/api/**",
      "slidingwindow.http.rules.api.key=header:X-Api-Key",
      "slidingwindow.http.rules.api.limits[0].permits=2",
      "slidingwindow.http.rules.api.limits[0].window=1m",
      "management.endpoints.web.exposure.include=slidingwindow",
    })
@WithoutRedisServer
class DashboardPageBrowserIT {

  /** A client-chosen key that would run script if the page inserted it as HTML. */
  private static final String HOSTILE = "<img src=x onerror=\"document.body.dataset.pwned='yes'\">";

  /** How the dashboard shows the hostile key: its source and a hash, never the key. */
  private static final String SHOWN = DecisionRecorder.shownKey("header:x-api-key:" + HOSTILE);

  @SpringBootApplication
  static class App {
    @RestController
    static class Api {
      @GetMapping("/api/a")
      String ok() {
        return "ok";
      }
    }
  }

  @LocalServerPort int port;
  private HeadlessChromium browser;

  @BeforeEach
  void openBrowser() throws Exception {
    Path binary =
        Path.of(System.getProperty("chromium.binary", HeadlessChromium.DEFAULT_BINARY.toString()));
    browser = new HeadlessChromium(binary, 1280, 900);
  }

  @AfterEach
  void closeBrowser() {
    if (browser != null) {
      browser.close();
    }
  }

  private long number(String expression) throws Exception {
    JsonNode value = browser.evaluate(expression);
    return value.isTextual() ? Long.parseLong(value.asText()) : value.asLong();
  }

  private String text(String expression) throws Exception {
    return browser.evaluate(expression).asText();
  }

  @Test
  void page_refusalWhileOpen_drawnAndListedAsTextWithoutErrors() throws Exception {
    DashboardFeedChecks http = new DashboardFeedChecks(port);
    browser.navigate("http://127.0.0.1:" + port + "/actuator/slidingwindow/index.html");
    await("the page's first draw")
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptionsInstanceOf(IllegalStateException.class)
        .until(() -> number("document.body ? Number(document.body.dataset.draws || 0) : 0") >= 1);
    assertThat(text("document.querySelector('#top tbody').textContent"))
        .contains("nothing refused");

    assertThat(http.get("/api/a", HOSTILE).statusCode()).isEqualTo(200);
    assertThat(http.get("/api/a", HOSTILE).statusCode()).isEqualTo(200);
    assertThat(http.get("/api/a", HOSTILE).statusCode()).isEqualTo(429);

    // The page draws a second once it is over, so the points come within a second or two.
    await("the refusal drawn and listed")
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              assertThat(number("Number(document.body.dataset.points)")).isPositive();
              assertThat(text("document.querySelector('#top tbody').textContent"))
                  .contains(SHOWN)
                  .doesNotContain(HOSTILE);
            });
    assertThat(
            text(
                "Array.from(document.querySelectorAll('#top tbody tr')).map(r =>"
                    + " Array.from(r.cells).map(c => c.textContent).join('|')).join('\\n')"))
        .as("one row: domain, rule, the key's source and hash, refusals")
        .isEqualTo("shop|api|" + SHOWN + "|1");
    assertThat(number("document.querySelectorAll('img').length"))
        .as("no element from the key")
        .isZero();
    JsonNode pwned = browser.evaluate("document.body.dataset.pwned");
    assertThat(pwned.isMissingNode() || pwned.isNull()).as("the key's handler never ran").isTrue();
    assertThat(
            number(
                "document.querySelectorAll('#chart-domains canvas, #chart-rules canvas').length"))
        .as("both charts drawn")
        .isEqualTo(2);
    assertThat(text("document.querySelector('#config tbody').textContent"))
        .contains("api")
        .contains("2 per 1m");
    assertThat(text("document.getElementById('backend').textContent")).isEqualTo("backend: memory");

    assertThat(browser.errors()).as("errors the page reported").isEmpty();
  }
}
