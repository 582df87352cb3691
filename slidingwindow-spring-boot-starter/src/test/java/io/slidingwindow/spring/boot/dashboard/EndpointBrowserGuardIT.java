package io.slidingwindow.spring.boot.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.testkit.browser.HeadlessChromium;
import io.slidingwindow.testkit.redis.WithoutRedisServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * The {@code slidingwindow} endpoint's write operations (a plan change, a quota reset) and reads as
 * a web page in the operator's browser (headless Chromium: {@code /usr/bin/chromium}, or {@code
 * -Dchromium.binary=PATH}) can send them, on each web stack, with the endpoint on the application's
 * port and on a management port of its own, both on 127.0.0.1.
 *
 * <p>A page whose host name its owner rebinds to the application's address (DNS rebinding) is, for
 * the browser, of the same origin as the endpoint, so it may send {@code application/json} without
 * asking: here the name {@code rebound.test} resolves to 127.0.0.1 (Chromium's {@code
 * --host-resolver-rules}), and such a page must change nothing and read neither the feed nor a
 * key's quota (over HTTP at a host name, Chromium sends no {@code Sec-Fetch-Site}, and no {@code
 * Origin} on a read of the page's own origin). The endpoint's own page, opened at the loopback
 * address, still draws, reads and posts; a page at a host name the CORS properties allow reads.
 */
@WithoutRedisServer
class EndpointBrowserGuardIT {

  private static final String REBOUND = "rebound.test";
  private static final String CHANGE = "/actuator/slidingwindow/api/plans/free";
  private static final String RESET = "/actuator/slidingwindow/api/header:x-api-key:free-1";
  private static final String FEED = "/actuator/slidingwindow";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(PlanChangeScenarios.Plans.class)
  static class App {
    @Bean
    FakeTicker ticker() {
      return new FakeTicker();
    }
  }

  private static HeadlessChromium browser;
  private ConfigurableApplicationContext application;

  @BeforeAll
  static void openBrowser() throws Exception {
    Path binary =
        Path.of(System.getProperty("chromium.binary", HeadlessChromium.DEFAULT_BINARY.toString()));
    browser =
        new HeadlessChromium(
            binary, 1024, 768, List.of("--host-resolver-rules=MAP " + REBOUND + " 127.0.0.1"));
  }

  @AfterAll
  static void closeBrowser() {
    if (browser != null) {
      browser.close();
    }
  }

  @AfterEach
  void stop() {
    if (application != null) {
      application.close();
    }
  }

  private int start(String stack, boolean managementPort) {
    return start(stack, managementPort, Map.of());
  }

  private int start(String stack, boolean managementPort, Map<String, Object> more) {
    Map<String, Object> properties = new HashMap<>(more);
    properties.put("spring.main.web-application-type", stack);
    properties.put("server.address", "127.0.0.1");
    properties.put("server.port", 0);
    if (managementPort) {
      properties.put("management.server.port", 0);
      properties.put("management.server.address", "127.0.0.1");
    }
    properties.put("management.endpoints.web.exposure.include", "slidingwindow");
    properties.put("slidingwindow.http.rules.api.paths", "/api/**");
    properties.put("slidingwindow.http.rules.api.key", "header:X-Api-Key");
    properties.put("slidingwindow.http.rules.api.limits[0].permits", 2);
    properties.put("slidingwindow.http.rules.api.limits[0].window", "1m");
    properties.put("slidingwindow.http.rules.api.plans.free.limits[0].permits", 5);
    properties.put("slidingwindow.http.rules.api.plans.free.limits[0].window", "1m");
    properties.put("slidingwindow.http.rules.api.plans.pro.limits[0].permits", 20);
    properties.put("slidingwindow.http.rules.api.plans.pro.limits[0].window", "1m");
    properties.put("slidingwindow.http.rules.api.plan-resolver", "apiPlans");
    application = new SpringApplicationBuilder(App.class).properties(properties).run();
    String port =
        application
            .getEnvironment()
            .getProperty(managementPort ? "local.management.port" : "local.server.port");
    return Integer.parseInt(port);
  }

  /** Opens the endpoint's page at {@code origin} and waits until it is there. */
  private static void open(String origin) throws Exception {
    browser.navigate(origin + "/actuator/slidingwindow/index.html");
    await("the page at " + origin)
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptionsInstanceOf(IllegalStateException.class)
        .until(
            () -> browser.evaluate("location.origin + ' ' + document.readyState").asText(),
            text -> text.equals(origin + " complete"));
  }

  /** What the open page's script gets for {@code method} {@code path}: status, space, body. */
  private static String send(String method, String path, String body) throws Exception {
    String init =
        body == null
            ? "{method: '" + method + "'}"
            : "{method: '"
                + method
                + "', headers: {'Content-Type': 'application/json'}, body: '"
                + body
                + "'}";
    browser.evaluate(
        "window.sent = null; fetch('"
            + path
            + "', "
            + init
            + ").then(r => r.text().then(t => window.sent = r.status + ' ' + t),"
            + " e => window.sent = 'failed ' + e)");
    return await(method + " " + path)
        .atMost(Duration.ofSeconds(20))
        .until(() -> browser.evaluate("window.sent"), v -> !v.isNull() && !v.isMissingNode())
        .asText();
  }

  private static long freePermits(int port) throws Exception {
    HttpResponse<String> plan =
        CLIENT.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + CHANGE)).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(plan.statusCode()).as(plan.body()).isEqualTo(200);
    return JSON.readTree(plan.body()).get("limits").get(0).get("permits").asLong();
  }

  /** Waits until the open page has drawn the feed at least once. */
  private static void drawn() {
    await("the page's first draw")
        .atMost(Duration.ofSeconds(30))
        .until(() -> browser.evaluate("Number(document.body.dataset.draws || 0)").asLong() >= 1);
  }

  @ParameterizedTest(name = "{0}, management port of its own: {1}")
  @CsvSource({"servlet, true", "servlet, false", "reactive, true", "reactive, false"})
  void reboundPage_changesNothing_whileThePageAtTheLoopbackAddressMay(
      String stack, boolean managementPort) throws Exception {
    int port = start(stack, managementPort);

    open("http://" + REBOUND + ":" + port);
    assertThat(send("POST", CHANGE, "{\"limits\":\"1000/1m\"}"))
        .as("a plan change from the rebound page")
        .startsWith("403 ");
    assertThat(send("DELETE", RESET, null)).as("a reset from the rebound page").startsWith("403 ");
    assertThat(freePermits(port)).as("the plan as configured").isEqualTo(5);
    assertThat(send("GET", FEED, null))
        .as("the feed, read by the rebound page")
        .startsWith("403 {\"error\":\"a request at a host name (Host: " + REBOUND)
        .contains("may not read this")
        .contains("localhost or an IP address")
        .contains("management.endpoints.web.cors.allowed-origins");
    assertThat(send("GET", RESET, null))
        .as("a key's quota, read by the rebound page")
        .startsWith("403 ");
    await("the page at the host name, showing why its feed is refused")
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> browser.evaluate("document.getElementById('status').textContent").asText(),
            text ->
                text.startsWith("HTTP 403: a request at a host name (Host: " + REBOUND)
                    && text.contains("management.endpoints.web.cors.allowed-origins"));

    open("http://127.0.0.1:" + port);
    drawn();
    assertThat(send("GET", FEED, null)).startsWith("200 {");
    assertThat(send("GET", RESET, null)).startsWith("200 {");
    assertThat(send("POST", CHANGE, "{\"limits\":\"8/1m\"}")).startsWith("200 ");
    assertThat(send("DELETE", RESET, null)).startsWith("200 ");
    assertThat(freePermits(port)).isEqualTo(8);

    // The feed's address typed into the browser (Sec-Fetch-Site: none) at the loopback address.
    browser.navigate("http://127.0.0.1:" + port + FEED);
    await("the feed, opened at the loopback address")
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptionsInstanceOf(IllegalStateException.class)
        .until(
            () -> browser.evaluate("document.body ? document.body.textContent : ''").asText(),
            text -> text.startsWith("{") && text.contains("\"rules\""));
  }

  @ParameterizedTest(name = "{0}, management port of its own: {1}")
  @CsvSource({"servlet, true", "reactive, false"})
  void pageAtAHostName_readsTheFeedAndQuotas_whenTheCorsPropertiesAllowItsOrigin(
      String stack, boolean managementPort) throws Exception {
    int port =
        start(
            stack,
            managementPort,
            Map.of(
                "management.endpoints.web.cors.allowed-origin-patterns",
                "http://" + REBOUND + ":[*]"));

    open("http://" + REBOUND + ":" + port);
    drawn();
    assertThat(send("GET", FEED, null)).startsWith("200 {");
    assertThat(send("GET", RESET, null)).startsWith("200 {");
  }
}
