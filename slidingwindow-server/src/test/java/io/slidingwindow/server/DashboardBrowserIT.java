package io.slidingwindow.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.slidingwindow.dashboard.DecisionRecorder;
import io.slidingwindow.testkit.browser.HeadlessChromium;
import io.slidingwindow.testkit.redis.WithoutRedisServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard page in a real browser (headless Chromium, which must be installed: {@code
 * /usr/bin/chromium}, or {@code -Dchromium.binary=PATH}): while the page is open, traffic is sent
 * over HTTP, and the page must draw it, list the refused descriptors as text, and report no error.
 * Chromium resolves two made-up names to 127.0.0.1: {@value #REBOUND}, as a page whose owner
 * rebinds its name would, and {@value #ALLOWED}, a name the service allows.
 */
@WithoutRedisServer
class DashboardBrowserIT {

  private static final String CONFIG =
      """
      domain: shop
      descriptors:
        - key: client
          rate_limit:
            unit: minute
            requests_per_unit: 3
        - key: path
          value: /health
          rate_limit:
            unlimited: true
      """;

  private static final String REBOUND = "rebound.test";
  private static final String ALLOWED = "dashboard.test";

  /** A client-chosen value that would run script if the page inserted it as HTML. */
  private static final String HOSTILE = "<img src=x onerror=\"document.body.dataset.pwned='yes'\">";

  @TempDir Path dir;
  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final ObjectMapper json = new ObjectMapper();
  private RateLimitServer server;
  private HeadlessChromium browser;

  @BeforeEach
  void start() throws Exception {
    Path config = dir.resolve("shop.yaml");
    Files.writeString(config, CONFIG);
    server = TestServers.onLoopback(config).adminAllowedHosts(List.of(ALLOWED)).start();
    Path binary =
        Path.of(System.getProperty("chromium.binary", HeadlessChromium.DEFAULT_BINARY.toString()));
    browser =
        new HeadlessChromium(
            binary,
            1280,
            900,
            List.of(
                "--host-resolver-rules=MAP "
                    + REBOUND
                    + " 127.0.0.1, MAP "
                    + ALLOWED
                    + " 127.0.0.1"));
  }

  @AfterEach
  void stop() {
    if (browser != null) {
      browser.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private int decide(String key, String value) throws IOException, InterruptedException {
    String body =
        json.writeValueAsString(
            json.createObjectNode()
                .put("domain", "shop")
                .set(
                    "descriptors",
                    json.createArrayNode()
                        .add(
                            json.createObjectNode()
                                .set(
                                    "entries",
                                    json.createArrayNode()
                                        .add(
                                            json.createObjectNode()
                                                .put("key", key)
                                                .put("value", value))))));
    HttpResponse<String> response =
        client.send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + server.httpPort() + "/v1/decide"))
                .timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    return response.statusCode();
  }

  private long number(String expression) throws Exception {
    JsonNode value = browser.evaluate(expression);
    return value.isTextual() ? Long.parseLong(value.asText()) : value.asLong();
  }

  private String text(String expression) throws Exception {
    return browser.evaluate(expression).asText();
  }

  @Test
  void dashboard_trafficWhileOpen_drawnAndListedWithoutErrors() throws Exception {
    browser.navigate("http://127.0.0.1:" + server.adminPort() + "/dashboard");
    // While the page loads, its body may be missing and an evaluation may meet the blank page
    // being replaced; both only delay the first draw.
    await("the page's first draw")
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptionsInstanceOf(IllegalStateException.class)
        .until(() -> number("document.body ? Number(document.body.dataset.draws || 0) : 0") >= 1);
    assertThat(number("Number(document.body.dataset.points)")).isZero();
    assertThat(text("document.querySelector('#top tbody').textContent"))
        .contains("nothing refused");

    int granted = 0;
    int refused = 0;
    for (int i = 0; i < 10; i++) {
      int status = decide("client", "alice");
      granted += status == 200 ? 1 : 0;
      refused += status == 429 ? 1 : 0;
    }
    for (int i = 0; i < 5; i++) {
      decide("client", HOSTILE);
    }
    for (int i = 0; i < 4; i++) {
      assertThat(decide("path", "/health")).isEqualTo(200);
    }
    assertThat(granted).isEqualTo(3);
    assertThat(refused).isEqualTo(7);

    await("the traffic drawn and the refused descriptors listed")
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              assertThat(number("Number(document.body.dataset.points)")).isPositive();
              assertThat(text("document.querySelector('#top tbody').textContent"))
                  .contains(DecisionRecorder.shownKey("client=alice"))
                  .contains(DecisionRecorder.shownKey("client=" + HOSTILE))
                  .doesNotContain("alice");
            });

    // The table rows: alice first with her 7 refusals, then the hostile value's 2.
    assertThat(
            text(
                "Array.from(document.querySelectorAll('#top tbody tr')).map(r =>"
                    + " Array.from(r.cells).map(c => c.textContent).join('|')).join('\\n"
                    + "')"))
        .isEqualTo(
            "shop|client|"
                + DecisionRecorder.shownKey("client=alice")
                + "|7\nshop|client|"
                + DecisionRecorder.shownKey("client=" + HOSTILE)
                + "|2");
    // The hostile value stayed text: no element was made of it and its handler never ran.
    assertThat(number("document.querySelectorAll('img').length")).isZero();
    assertThat(
            browser.evaluate("document.body.dataset.pwned").isMissingNode()
                || browser.evaluate("document.body.dataset.pwned").isNull())
        .isTrue();
    // Both charts drew: uPlot made a canvas for each.
    assertThat(
            number(
                "document.querySelectorAll('#chart-domains canvas, #chart-rules canvas').length"))
        .isEqualTo(2);
    assertThat(text("document.querySelector('#chart-domains').textContent"))
        .contains("shop decisions")
        .contains("shop refusals");
    assertThat(text("document.querySelector('#config tbody').textContent"))
        .contains("3 per 1m")
        .contains("unlimited");
    assertThat(text("document.getElementById('backend').textContent"))
        .isEqualTo("backend: memory, store: in memory, state: up, errors: 0");
    assertThat(number("Number(document.body.dataset.updated)")).isPositive();

    assertThat(browser.errors()).as("errors the page reported").isEmpty();
  }

  /** What the open page's script gets for {@code GET path}: the status, a space, the body. */
  private String fetch(String path) throws Exception {
    browser.evaluate(
        "window.got = null; fetch('"
            + path
            + "').then(r => r.text().then(t => window.got = r.status + ' ' + t),"
            + " e => window.got = 'failed ' + e)");
    return await("GET " + path)
        .atMost(Duration.ofSeconds(20))
        .until(() -> browser.evaluate("window.got"), v -> !v.isNull() && !v.isMissingNode())
        .asText();
  }

  /** Opens {@code url} and waits until its document, of {@code origin}, has loaded. */
  private void open(String url, String origin) throws Exception {
    browser.navigate(url);
    await("the document at " + url)
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptionsInstanceOf(IllegalStateException.class)
        .until(
            () -> text("location.origin + ' ' + document.readyState"),
            t -> t.equals(origin + " complete"));
  }

  @Test
  void dashboard_atAReboundName_readsNothing_whileAtAnAllowedNameItDraws() throws Exception {
    for (int i = 0; i < 4; i++) {
      decide("client", "alice");
    }
    String shown = DecisionRecorder.shownKey("client=alice");
    String rebound = "http://" + REBOUND + ":" + server.adminPort();

    open(rebound + "/dashboard", rebound);
    // The page's script fetches over plain HTTP, so with neither Origin nor Sec-Fetch-Site.
    for (String path : List.of("/v1/dashboard", "/v1/config", "/v1/stats", "/v1/overrides")) {
      assertThat(fetch(path)).as(path).startsWith("403 ").doesNotContain(shown);
    }
    assertThat(text("document.body.textContent")).contains("--admin-allowed-hosts");

    String allowed = "http://" + ALLOWED + ":" + server.adminPort();
    open(allowed + "/dashboard", allowed);
    assertThat(fetch("/v1/dashboard")).startsWith("200 ").contains(shown);
    await("the refused descriptor listed at " + allowed)
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(text("document.querySelector('#top tbody').textContent"))
                    .contains(shown));
  }

  @Test
  void dashboard_feedRefused_showsTheReason_andUnanswered_saysNoAnswer() throws Exception {
    int port = server.adminPort();
    String allowed = "http://" + ALLOWED + ":" + port;
    open(allowed + "/dashboard", allowed);
    await("the page's first draw at " + allowed)
        .atMost(Duration.ofSeconds(30))
        .until(() -> number("Number(document.body.dataset.draws || 0)") >= 1);

    server.close();
    await("the page, told no answer")
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> text("document.getElementById('status').textContent"),
            t -> !t.startsWith("updated"));
    assertThat(text("document.getElementById('status').textContent"))
        .startsWith("no answer: ")
        .doesNotContain("HTTP");

    // The same port again, now without the page's host name among the allowed ones: the feed is
    // refused 403 with a JSON reason, which the page shows.
    server = TestServers.onLoopback(dir.resolve("shop.yaml")).adminPort(port).start();
    await("the page, showing why its feed is refused")
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(text("document.getElementById('status').textContent"))
                    .startsWith(
                        "HTTP 403: without an admin token this port answers only at localhost")
                    .contains("--admin-allowed-hosts"));
    assertThat(text("document.getElementById('status').className")).isEqualTo("status stale");
  }
}
