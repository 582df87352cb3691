package io.slidingwindow.spring.boot.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.slidingwindow.Limit;
import io.slidingwindow.Plan;
import io.slidingwindow.PlanResolver;
import io.slidingwindow.testkit.FakeTicker;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.TestPropertySource;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A run-time change of a plan's limits through the actuator, over real HTTP on the application and
 * management ports: rule {@code api} (key {@code header:X-Api-Key}) sells {@code free} at 5 per
 * window and {@code pro} at 20; a subclass says where the counts live. Keys are fresh per test, so
 * the scenarios need no clock; each test starts with the configuration's plans in service.
 */
@ExtendWith(OutputCaptureExtension.class)
@TestPropertySource(
    properties = {
      "server.address=127.0.0.1",
      "management.server.port=0",
      "management.server.address=127.0.0.1",
      "management.endpoints.web.exposure.include=slidingwindow",
      "slidingwindow.http.rules.api.paths=/api/**",
      "slidingwindow.http.rules.api.key=header:X-Api-Key",
      "slidingwindow.http.rules.api.limits[0].permits=2",
      "slidingwindow.http.rules.api.limits[0].window=1m",
      "slidingwindow.http.rules.api.plans.free.limits[0].permits=5",
      "slidingwindow.http.rules.api.plans.free.limits[0].window=1m",
      "slidingwindow.http.rules.api.plans.pro.limits[0].permits=20",
      "slidingwindow.http.rules.api.plans.pro.limits[0].window=1m",
      "slidingwindow.http.rules.api.plan-resolver=apiPlans",
      "management.endpoints.web.cors.allowed-origins=http://admin.test",
      "management.endpoints.web.cors.allowed-methods=GET,POST,DELETE",
    })
abstract class PlanChangeScenarios {

  /**
   * The application's own plan lookup ({@code plan-resolver}): a key named {@code free-...} or
   * {@code pro-...} is on that plan, with the configuration's limits; a run-time change reaches
   * these keys by the plan's name.
   */
  @Configuration(proxyBeanMethods = false)
  static class Plans {
    @Bean
    PlanResolver<String> apiPlans() {
      Plan free = Plan.of("free", Limit.of(5, Duration.ofMinutes(1)));
      Plan pro = Plan.of("pro", Limit.of(20, Duration.ofMinutes(1)));
      return key ->
          key.startsWith(counted("free-")) ? free : key.startsWith(counted("pro-")) ? pro : null;
    }
  }

  /** The application of the in-memory scenarios, on a fake clock that never moves. */
  @SpringBootApplication
  @Import({Plans.class, Api.class})
  static class InMemoryApp {
    @Bean
    FakeTicker ticker() {
      return new FakeTicker();
    }
  }

  @RestController
  static class Api {
    @GetMapping("/api/{id}")
    String ok() {
      return "ok";
    }
  }

  private static final HttpClient CLIENT =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private static final ObjectMapper JSON = new ObjectMapper();

  @LocalServerPort int port;
  @LocalManagementPort int managementPort;
  @Autowired ConfigurableApplicationContext context;

  /** Puts the configuration's free plan back in service (a change to what it has is none). */
  @BeforeEach
  void configuredPlans() throws Exception {
    assertThat(change("free", "{\"limits\":\"5/1m\"}").statusCode()).isEqualTo(200);
  }

  /** A key on {@code plan} (free, pro, or none: the rule's limits), as the client sends it. */
  static String keyOn(String plan) {
    return plan + "-" + UUID.randomUUID();
  }

  /** The key as the rule counts it. */
  static String counted(String apiKey) {
    return "header:x-api-key:" + apiKey;
  }

  HttpResponse<String> send(int toPort, String method, String path, String body)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + toPort + path))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      request.header("Content-Type", "application/json");
    }
    try {
      return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      // A pooled connection the server closed meanwhile (Reactor Netty does after some errors):
      // sent again on a new connection (the shared client may hold more than one stale one).
      return sendAfresh(request.build());
    }
  }

  /**
   * Sends {@code request} on a new connection, up to three times. A server that answers an error
   * before reading a request's body and then closes the connection resets it, and the client may
   * lose the answer (no bytes); each attempt is a client of its own with an empty pool. Every
   * request here may be repeated (a plan change sets the same limits again, a reset resets again).
   */
  private static HttpResponse<String> sendAfresh(HttpRequest request)
      throws IOException, InterruptedException {
    IOException last = null;
    for (int attempt = 0; attempt < 3; attempt++) {
      try {
        return HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .build()
            .send(request, HttpResponse.BodyHandlers.ofString());
      } catch (IOException e) {
        last = e;
      }
    }
    throw last;
  }

  /** {@code method} {@code path} with {@code headers} (name, value, ...) and maybe a JSON body. */
  HttpResponse<String> send(String method, String path, String body, String... headers)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + path))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body))
            .headers(headers);
    if (body != null) {
      request.header("Content-Type", "application/json");
    }
    return sendAfresh(request.build());
  }

  /**
   * {@code GET path} on the management port as a browser sends it, at {@code host} (the {@code
   * Host} header, which {@link HttpClient} does not let a caller set) with {@code headers} (name,
   * value, ...): the response as received, status line first.
   */
  String browserGet(String path, String host, String... headers) throws IOException {
    StringBuilder request =
        new StringBuilder("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n");
    for (int i = 0; i < headers.length; i += 2) {
      request.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
    }
    request.append("Connection: close\r\n\r\n");
    try (Socket socket = new Socket("127.0.0.1", managementPort)) {
      socket.setSoTimeout(20_000);
      socket.getOutputStream().write(request.toString().getBytes(StandardCharsets.ISO_8859_1));
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  HttpResponse<String> change(String plan, String body) throws Exception {
    return send(managementPort, "POST", "/actuator/slidingwindow/api/plans/" + plan, body);
  }

  JsonNode json(HttpResponse<String> response, int status) throws IOException {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
    return JSON.readTree(response.body());
  }

  /** How many of {@code calls} calls with {@code apiKey} are granted. */
  int granted(String apiKey, int calls) throws Exception {
    int granted = 0;
    for (int i = 0; i < calls; i++) {
      HttpResponse<String> response =
          CLIENT.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/" + i))
                  .header("X-Api-Key", apiKey)
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).isIn(200, 429);
      granted += response.statusCode() == 200 ? 1 : 0;
    }
    return granted;
  }

  JsonNode quota(String apiKey) throws Exception {
    return json(
        send(managementPort, "GET", "/actuator/slidingwindow/api/" + counted(apiKey), null), 200);
  }

  @Test
  void changePlan_raisedThenLowered_keepsTheCountsAndLeavesOtherPlansAlone(CapturedOutput output)
      throws Exception {
    String free = keyOn("free");
    String pro = keyOn("pro");
    assertThat(granted(free, 7)).as("free, as configured").isEqualTo(5);
    assertThat(granted(pro, 3)).isEqualTo(3);

    JsonNode raised = json(change("free", "{\"limits\":\"8/1m\"}"), 200);
    assertThat(raised.get("limits").get(0).get("permits").asLong()).isEqualTo(8);
    assertThat(raised.get("before").get(0).get("permits").asLong()).isEqualTo(5);
    assertThat(raised.get("changed").asBoolean()).isTrue();
    assertThat(granted(free, 6)).as("the five counted are kept: three more of 8").isEqualTo(3);
    JsonNode spent = quota(free).get("limits").get(0);
    assertThat(spent.get("permits").asLong()).isEqualTo(8);
    assertThat(spent.get("used").asLong()).isEqualTo(8);

    json(change("free", "{\"limits\":\"2/1m\"}"), 200);
    assertThat(granted(free, 2)).as("lowered below what it holds: refused at once").isZero();
    String fresh = keyOn("free");
    assertThat(granted(fresh, 4)).as("a new key on free gets the new 2").isEqualTo(2);

    JsonNode other = quota(pro);
    assertThat(other.get("plan").asText()).isEqualTo("pro");
    assertThat(other.get("limits").get(0).get("permits").asLong()).isEqualTo(20);
    assertThat(other.get("limits").get(0).get("used").asLong()).isEqualTo(3);
    assertThat(granted(pro, 20)).as("pro is not touched").isEqualTo(17);
    assertThat(granted(keyOn("none"), 3)).as("keys on no plan keep the rule's 2").isEqualTo(2);

    JsonNode plans = json(send(managementPort, "GET", "/actuator/slidingwindow/api", null), 200);
    assertThat(plans.get("plans").get("free").get("limits").get(0).get("permits").asLong())
        .isEqualTo(2);
    assertThat(plans.get("plans").get("free").get("changed").asBoolean()).isTrue();
    assertThat(plans.get("plans").get("free").get("configured").get(0).get("permits").asLong())
        .isEqualTo(5);
    assertThat(plans.get("plans").get("pro").get("changed").asBoolean()).isFalse();

    assertThat(output.getAll())
        .contains("slidingwindow plan change: rule=api plan=free limits=[5/1m] -> [8/1m]")
        .contains("slidingwindow plan change: rule=api plan=free limits=[8/1m] -> [2/1m]");
  }

  @Test
  void reset_isAuditedWithThePlanAndTheCountsButNotTheKey(CapturedOutput output) throws Exception {
    String free = keyOn("free");
    assertThat(granted(free, 3)).isEqualTo(3);
    json(send(managementPort, "DELETE", "/actuator/slidingwindow/api/" + counted(free), null), 200);
    assertThat(output.getAll())
        .contains(
            "slidingwindow quota reset: rule=api key="
                + SlidingWindowQuotas.digest(counted(free))
                + " plan=free limits=[5/1m] used=[3] -> [0]")
        .doesNotContain(free);
    assertThat(granted(free, 6)).isEqualTo(5);
  }

  @Test
  void changePlan_badRequests_answerWhatIsWrongAndChangeNothing(CapturedOutput output)
      throws Exception {
    String good = "{\"limits\":\"8/1m\"}";
    assertThat(
            json(
                    send(
                        managementPort,
                        "POST",
                        "/actuator/slidingwindow/no-such-rule/plans/free",
                        good),
                    404)
                .get("error")
                .asText())
        .contains("no-such-rule");
    assertThat(json(change("gold", good), 404).get("error").asText())
        .contains("no plan named 'gold'")
        .contains("[free, pro]");
    assertThat(
            send(managementPort, "GET", "/actuator/slidingwindow/api/plans/gold", null)
                .statusCode())
        .isEqualTo(404);
    String[][] bad = {
      {"0/1m", "limits[0]: ", "0"},
      {"8/1m, 3/soon", "limits[1]: ", "soon"},
      {"8/1m,", "limits[1]: ", "''"},
      {"8", "limits[0]: ", "8"},
      {" ", "limits: ", "' '"},
    };
    for (String[] c : bad) {
      String error =
          json(change("free", "{\"limits\":\"" + c[0] + "\"}"), 400).get("error").asText();
      assertThat(error).as(c[0]).startsWith(c[1]).contains(c[2]);
    }
    assertThat(change("free", "{\"limit\":\"8/1m\"}").statusCode())
        .as("no limits given")
        .isEqualTo(400);
    assertThat(output.getAll())
        .contains("slidingwindow plan change refused: rule=api plan=gold (404");

    JsonNode free =
        json(send(managementPort, "GET", "/actuator/slidingwindow/api/plans/free", null), 200);
    assertThat(free.get("limits").get(0).get("permits").asLong()).as("unchanged").isEqualTo(5);
    assertThat(free.get("changed").asBoolean()).isFalse();
    assertThat(granted(keyOn("free"), 7)).isEqualTo(5);
  }

  @Test
  void changeAndReset_fromAWebPage_refusedWhateverThePathsSpelling(CapturedOutput output)
      throws Exception {
    String free = keyOn("free");
    assertThat(granted(free, 3)).isEqualTo(3);
    String body = "{\"limits\":\"50/1m\"}";
    // Without an Origin, the actuator's CORS check lets the first through; being configured here,
    // it would refuse the others (403, not JSON) after the endpoint's own check.
    String[][] pages = {
      {"Sec-Fetch-Site", "same-site"},
      {"Origin", "http://evil.test", "Sec-Fetch-Site", "cross-site"},
      {"Origin", "http://evil.test"},
      {"Origin", "null"},
    };
    String[] spellings = {
      "/actuator/slidingwindow/api/plans/free",
      "/actuator/%73lidingwindow/api/plans/free",
      "/actuator;a=b/slidingwindow;c=d/api/plans/free",
    };
    for (String[] page : pages) {
      for (String path : spellings) {
        HttpResponse<String> refused = send("POST", path, body, page);
        assertThat(refused.statusCode()).as(path + " " + List.of(page)).isEqualTo(403);
        assertThat(JSON.readTree(refused.body()).get("error").asText())
            .contains("a web page of another origin");
      }
      assertThat(send("DELETE", "/actuator/slidingwindow/api/" + counted(free), null, page))
          .extracting(HttpResponse::statusCode)
          .isEqualTo(403);
    }
    assertThat(output.getAll())
        .contains("slidingwindow endpoint: refused POST, which a web page may have sent");
    assertThat(quota(free).get("limits").get(0).get("used").asLong()).as("not reset").isEqualTo(3);
    assertThat(quota(free).get("limits").get(0).get("permits").asLong()).isEqualTo(5);

    // The endpoint's own origin at the loopback address, and an origin the actuator's CORS
    // configuration allows, may.
    String own = "http://127.0.0.1:" + managementPort;
    String path = "/actuator/slidingwindow/api/plans/free";
    json(send("POST", path, body, "Origin", own, "Sec-Fetch-Site", "same-origin"), 200);
    json(
        send("POST", path, body, "Origin", "http://admin.test", "Sec-Fetch-Site", "cross-site"),
        200);
    String reset = "/actuator/slidingwindow/api/" + counted(free);
    json(send("DELETE", reset, null, "Origin", own, "Sec-Fetch-Site", "same-origin"), 200);
    assertThat(quota(free).get("limits").get(0).get("used").asLong()).isZero();
  }

  @Test
  void feedAndPeek_fromAWebPage_refusedUnlessAtTheLoopbackAddressOrAnAllowedOrigin(
      CapturedOutput output) throws Exception {
    String free = keyOn("free");
    assertThat(granted(free, 3)).isEqualTo(3);
    String peek = "/actuator/slidingwindow/api/" + counted(free);
    String[] reads = {
      "/actuator/slidingwindow",
      peek,
      "/actuator/slidingwindow/api",
      "/actuator/slidingwindow/api/plans/free",
      "/actuator/%73lidingwindow",
      "/actuator;a=b/slidingwindow;c=d/api/" + counted(free),
    };
    String loopback = "127.0.0.1:" + managementPort;
    String rebound = "rebound.test:" + managementPort;
    // Host, then the browser's headers; each refused whatever the path's spelling.
    String[][] refused = {
      {rebound, "Sec-Fetch-Site", "same-origin"},
      {rebound, "Origin", "http://" + rebound, "Sec-Fetch-Site", "same-origin"},
      {rebound, "Sec-Fetch-Site", "none"},
      {loopback, "Sec-Fetch-Site", "cross-site"},
      {loopback, "Origin", "http://evil.test", "Sec-Fetch-Site", "cross-site"},
      // No browser's header: what a rebound page's read over HTTP carries, but for its Host.
      {rebound},
    };
    for (String[] page : refused) {
      String[] headers = List.of(page).subList(1, page.length).toArray(String[]::new);
      for (String path : reads) {
        String answer = browserGet(path, page[0], headers);
        assertThat(answer).as(path + " " + List.of(page)).startsWith("HTTP/1.1 403");
        assertThat(answer).contains("{\"error\":\"a ").contains("may not read this");
      }
    }
    assertThat(browserGet(peek, rebound, "Sec-Fetch-Site", "same-origin"))
        .as("says what to do")
        .contains("a request at a host name (Host: " + rebound + ")")
        .contains("localhost or an IP address")
        .contains("http://" + rebound + ", in management.endpoints.web.cors.allowed-origins");
    assertThat(output.getAll())
        .contains("slidingwindow endpoint: refused GET, which a web page may have sent");

    // Served: the endpoint's own origin at the loopback address (a fetch, or the address typed),
    // an origin the actuator's CORS configuration allows (http://admin.test), a client that is no
    // browser at those, and the page's own files, which hold nothing of the application.
    String[][] served = {
      {loopback, "Sec-Fetch-Site", "same-origin"},
      {"localhost:" + managementPort, "Sec-Fetch-Site", "same-origin"},
      {loopback, "Sec-Fetch-Site", "none"},
      {loopback, "Origin", "http://admin.test", "Sec-Fetch-Site", "cross-site"},
      {"admin.test", "Sec-Fetch-Site", "same-origin"},
      {loopback},
      {"admin.test"},
    };
    for (String[] page : served) {
      String[] headers = List.of(page).subList(1, page.length).toArray(String[]::new);
      for (String path : List.of("/actuator/slidingwindow", peek)) {
        assertThat(browserGet(path, page[0], headers))
            .as(path + " " + List.of(page))
            .startsWith("HTTP/1.1 200");
      }
    }
    for (String file : List.of("index.html", "dashboard/dashboard.js")) {
      assertThat(
              browserGet(
                  "/actuator/slidingwindow/" + file, rebound, "Sec-Fetch-Site", "same-origin"))
          .as(file)
          .startsWith("HTTP/1.1 200");
    }
  }

  @Test
  void applicationPort_cannotChangePlans() throws Exception {
    String good = "{\"limits\":\"50/1m\"}";
    assertThat(send(port, "POST", "/actuator/slidingwindow/api/plans/free", good).statusCode())
        .isIn(401, 403, 404, 405);
    assertThat(granted(keyOn("free"), 7)).as("still 5").isEqualTo(5);
  }

  @Test
  void reload_putsTheConfiguredPlansBackAndKeepsTheCounts(CapturedOutput output) throws Exception {
    String free = keyOn("free");
    json(change("free", "{\"limits\":\"8/1m\"}"), 200);
    assertThat(granted(free, 6)).isEqualTo(6);

    // A change elsewhere in the rule (its methods) keeps its limiter.
    Map<String, Object> values = Map.of("slidingwindow.http.rules.api.methods", "GET");
    context
        .getEnvironment()
        .getPropertySources()
        .addFirst(new MapPropertySource("reload-" + UUID.randomUUID(), values));
    context.publishEvent(new EnvironmentChangeEvent(context, values.keySet()));

    assertThat(output.getAll())
        .contains(
            "slidingwindow plan change undone by a reload: rule=api plan=free limits=[8/1m] ->"
                + " [5/1m]");
    JsonNode plan =
        json(send(managementPort, "GET", "/actuator/slidingwindow/api/plans/free", null), 200);
    assertThat(plan.get("changed").asBoolean()).isFalse();
    JsonNode kept = quota(free).get("limits").get(0);
    assertThat(kept.get("permits").asLong()).isEqualTo(5);
    assertThat(kept.get("remaining").asLong())
        .as("the six granted are kept: the window is full (of the newest five it keeps)")
        .isZero();
    assertThat(granted(free, 2)).isZero();
  }
}
