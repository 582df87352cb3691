package io.slidingwindow.server.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.slidingwindow.server.RateLimitServer;
import io.slidingwindow.server.TestServers;
import io.slidingwindow.testkit.redis.WithoutRedisServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every metric the Grafana dashboard in {@code deploy/kubernetes} queries is one the service
 * exports: its expressions' metric names, checked against a scrape of a service that decided,
 * refused, failed a request and reloaded its configuration.
 */
@WithoutRedisServer
class GrafanaDashboardIT {

  private static final Pattern METRIC = Pattern.compile("slidingwindow_server_[a-z_]+");

  @TempDir Path dir;

  @Test
  void dashboard_everyMetricItQueries_isExported() throws Exception {
    JsonNode dashboard =
        new ObjectMapper()
            .readTree(KubernetesManifestsTest.DIR.resolve("grafana-dashboard.json").toFile());
    Set<String> queried = new TreeSet<>();
    for (JsonNode expr : dashboard.findValues("expr")) {
      Matcher m = METRIC.matcher(expr.asText());
      while (m.find()) {
        queried.add(m.group());
      }
    }
    assertThat(dashboard.findValues("expr")).hasSizeGreaterThan(5);

    Path config = dir.resolve("api.yaml");
    String rules =
        """
        domain: api
        descriptors:
          - key: client
            rate_limit: {unit: minute, requests_per_unit: 1}
        """;
    Files.writeString(config, rules);
    HttpClient client = HttpClient.newHttpClient();
    try (RateLimitServer server = TestServers.onLoopback(config).start()) {
      String decide =
          "{\"domain\": \"api\", \"descriptors\": [{\"entries\": [{\"key\": \"client\","
              + " \"value\": \"c\"}]}]}";
      for (String body : new String[] {decide, decide, "not json"}) {
        client.send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + server.httpPort() + "/v1/decide"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
      }
      Files.writeString(config, rules.replace("requests_per_unit: 1", "requests_per_unit: 2"));
      assertThat(server.reloadNow()).isTrue();
      String scrape =
          client
              .send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + server.adminPort() + "/metrics"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();

      Set<String> exported = new TreeSet<>();
      scrape
          .lines()
          .filter(line -> !line.startsWith("#"))
          .map(line -> line.split("[{ ]", 2)[0])
          .forEach(exported::add);
      assertThat(exported).containsAll(queried);
    }
  }
}
