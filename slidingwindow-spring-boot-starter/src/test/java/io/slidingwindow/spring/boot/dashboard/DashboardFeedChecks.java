package io.slidingwindow.spring.boot.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.slidingwindow.dashboard.DecisionRecorder;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.stream.StreamSupport;

/**
 * What the endpoint tests share: the rules they configure, the traffic they send with a real HTTP
 * client, and the checks of the {@code slidingwindow} endpoint's answer.
 */
final class DashboardFeedChecks {

  /** A key chosen by a client, with what JSON and HTML must escape. */
  static final String HOSTILE_KEY = "<script>\"k\\ey&";

  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final int port;

  DashboardFeedChecks(int port) {
    this.port = port;
  }

  HttpResponse<String> get(String path, String apiKey) throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10));
    if (apiKey != null) {
      request.header("X-Api-Key", apiKey);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Three requests of one client to {@code api} (the third refused), two to {@code trial}. */
  void sendTraffic() throws IOException, InterruptedException {
    assertThat(get("/api/a", HOSTILE_KEY).statusCode()).isEqualTo(200);
    assertThat(get("/api/a", HOSTILE_KEY).statusCode()).isEqualTo(200);
    assertThat(get("/api/a", HOSTILE_KEY).statusCode()).isEqualTo(429);
    assertThat(get("/trial", null).statusCode()).isEqualTo(200);
    assertThat(get("/trial", null).statusCode()).as("dry-run lets it through").isEqualTo(200);
  }

  /**
   * The page and its files under {@code endpoint} (for example {@code "/actuator/slidingwindow"}),
   * each with its content type, the page polling {@code feedUrl}; other names answer 404.
   */
  void checkPage(String endpoint, String feedUrl) throws IOException, InterruptedException {
    HttpResponse<String> page = get(endpoint + "/index.html", null);
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("Content-Type")).hasValue("text/html;charset=utf-8");
    assertThat(page.body())
        .contains("data-feed=\"" + feedUrl + "\"")
        .contains("src=\"dashboard/dashboard.js\"", "src=\"dashboard/uPlot.iife.min.js\"")
        .contains("http-equiv=\"Content-Security-Policy\"")
        .doesNotContain("http://", "https://");
    String[][] files = {
      {"dashboard.js", "text/javascript;charset=utf-8", "dataset.feed"},
      {"uPlot.iife.min.js", "text/javascript;charset=utf-8", "uPlot"},
      {"dashboard.css", "text/css;charset=utf-8", "{"},
      {"uPlot.min.css", "text/css;charset=utf-8", ".uplot"},
    };
    for (String[] file : files) {
      HttpResponse<String> response = get(endpoint + "/dashboard/" + file[0], null);
      assertThat(response.statusCode()).as(file[0]).isEqualTo(200);
      assertThat(response.headers().firstValue("Content-Type")).as(file[0]).hasValue(file[1]);
      assertThat(response.body()).as(file[0]).contains(file[2]);
    }
    for (String unknown :
        new String[] {
          "/nothing.html",
          "/dashboard.js",
          "/dashboard/index.html",
          "/dashboard/nothing.js",
          "/page/dashboard.js",
          "/dashboard/..%2Findex.html",
          "/dashboard/%2E%2E%2Fpage%2Fdashboard.js",
        }) {
      assertThat(get(endpoint + unknown, null).statusCode()).as(unknown).isIn(400, 404);
    }
  }

  /** The endpoint's answer after {@link #sendTraffic}, checked field by field. */
  void checkFeed() throws IOException, InterruptedException {
    HttpResponse<String> response = get("/actuator/slidingwindow", null);
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type").orElse("")).contains("json");
    JsonNode body = new ObjectMapper().readTree(response.body());

    JsonNode seconds = body.get("seconds");
    assertThat(seconds).hasSize(300);
    long now = System.currentTimeMillis() / 1000;
    assertThat(seconds.get(299).asLong()).isBetween(now - 60, now + 1);

    JsonNode shop = find(body.get("domains"), "domain", "shop");
    assertThat(sum(shop.get("decisions"))).isEqualTo(5);
    assertThat(sum(shop.get("refusals"))).isEqualTo(1);
    assertThat(sum(shop.get("dryRunRefusals"))).isEqualTo(1);
    JsonNode api = find(body.get("rules"), "rule", "api");
    assertThat(api.get("domain").asText()).isEqualTo("shop");
    assertThat(sum(api.get("decisions"))).isEqualTo(3);
    assertThat(sum(api.get("refusals"))).isEqualTo(1);
    assertThat(sum(find(body.get("rules"), "rule", "trial").get("dryRunRefusals"))).isEqualTo(1);

    assertThat(body.get("topWindowSeconds").asInt()).isEqualTo(60);
    JsonNode top = body.get("topRefused");
    assertThat(top).hasSize(2);
    JsonNode refusedApi = find(top, "rule", "api");
    assertThat(refusedApi.get("descriptor").asText())
        .as("the key shown as its source and a short hash, never as sent")
        .isEqualTo(DecisionRecorder.shownKey("header:x-api-key:" + HOSTILE_KEY))
        .startsWith("header:x-api-key:#")
        .doesNotContain("script");
    assertThat(refusedApi.get("refusals").asLong()).isEqualTo(1);
    assertThat(find(top, "rule", "trial").get("refusals").asLong()).isEqualTo(1);

    JsonNode config = body.get("config");
    assertThat(config.get("path").asText()).isNotEmpty();
    JsonNode rules = find(config.get("domains"), "domain", "shop").get("rules");
    JsonNode apiRule = find(rules, "rule", "api");
    assertThat(apiRule.get("limits").asText()).isEqualTo("2 per 1m");
    assertThat(apiRule.get("shadowMode").asBoolean()).isFalse();
    assertThat(apiRule.get("source").asText()).isEqualTo("GET /api/**");
    JsonNode trialRule = find(rules, "rule", "trial");
    assertThat(trialRule.get("limits").asText()).isEqualTo("1 per 10s");
    assertThat(trialRule.get("shadowMode").asBoolean()).isTrue();
    assertThat(body.get("backend").get("backend").asText()).isEqualTo("memory");
  }

  static long sum(JsonNode values) {
    return StreamSupport.stream(values.spliterator(), false).mapToLong(JsonNode::asLong).sum();
  }

  static JsonNode find(JsonNode array, String field, String value) {
    for (JsonNode node : array) {
      if (node.path(field).asText().equals(value)) {
        return node;
      }
    }
    throw new AssertionError("no " + field + "=" + value + " in " + array);
  }
}
