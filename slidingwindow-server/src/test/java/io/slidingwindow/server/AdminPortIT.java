package io.slidingwindow.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.slidingwindow.testkit.redis.WithoutRedisServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin port: its paths are answered there only, never on the decision port; without a token it
 * listens on the loopback address; with one, every path wants it.
 */
@WithoutRedisServer
class AdminPortIT {

  private static final List<String> ADMIN_PATHS =
      List.of("/metrics", "/v1/stats", "/v1/config", "/v1/dashboard", "/dashboard", "/");

  @TempDir Path dir;
  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final ObjectMapper json = new ObjectMapper();

  private RateLimitServer.Builder builder() throws Exception {
    Path config = dir.resolve("api.yaml");
    Files.writeString(
        config,
        """
        domain: api
        failure_policy: refuse
        descriptors:
          - key: client
            rate_limit: {unit: minute, requests_per_unit: 2, name: per_client}
        """);
    return TestServers.onLoopback(config);
  }

  @Test
  void adminPaths_onTheDecisionPort_notFound_andOnTheAdminPort_served() throws Exception {
    try (RateLimitServer server = builder().start()) {
      for (String path : ADMIN_PATHS) {
        assertThat(get(server.httpPort(), path, null).statusCode()).as(path).isEqualTo(404);
        assertThat(get(server.adminPort(), path, null).statusCode()).as(path).isEqualTo(200);
      }
      assertThat(get(server.httpPort(), "/healthcheck", null).statusCode()).isEqualTo(200);
      assertThat(get(server.httpPort(), "/livez", null).statusCode()).isEqualTo(200);
      assertThat(get(server.adminPort(), "/healthcheck", null).statusCode()).isEqualTo(404);
    }
  }

  @Test
  void adminWithoutToken_listensOnLoopbackOnly_withTokenOnTheHost() throws Exception {
    // 127.0.0.2 stands for the host's own address: it is not where loopback-only admin listens.
    try (RateLimitServer server = builder().host("127.0.0.2").start()) {
      assertThat(connects("127.0.0.2", server.httpPort())).isTrue();
      assertThat(connects("127.0.0.2", server.adminPort())).isFalse();
      assertThat(connects("127.0.0.1", server.adminPort())).isTrue();
    }
    try (RateLimitServer server =
        builder().host("127.0.0.2").adminToken("t".toCharArray()).start()) {
      assertThat(connects("127.0.0.2", server.adminPort())).isTrue();
      assertThat(connects("127.0.0.1", server.adminPort())).isFalse();
    }
  }

  @Test
  void adminWithToken_everyPathWantsIt() throws Exception {
    try (RateLimitServer server = builder().adminToken("s3cret-token".toCharArray()).start()) {
      for (String path : ADMIN_PATHS) {
        HttpResponse<String> without = get(server.adminPort(), path, null);
        assertThat(without.statusCode()).as(path).isEqualTo(401);
        assertThat(without.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
        assertThat(get(server.adminPort(), path, "Bearer wrong").statusCode()).isEqualTo(401);
        assertThat(get(server.adminPort(), path, "Bearer s3cret-token").statusCode())
            .as(path)
            .isEqualTo(200);
      }
      assertThat(get(server.adminPort(), "/nothing", null).statusCode()).isEqualTo(401);
      assertThat(get(server.adminPort(), "/nothing", "Bearer s3cret-token").statusCode())
          .isEqualTo(404);
    }
  }

  @Test
  void configView_listsDomainsPoliciesAndRules() throws Exception {
    try (RateLimitServer server = builder().start()) {
      JsonNode config = json.readTree(get(server.adminPort(), "/v1/config", null).body());

      JsonNode domain = config.get("domains").get(0);
      assertThat(domain.get("domain").asText()).isEqualTo("api");
      assertThat(domain.get("failurePolicy").asText()).isEqualTo("refuse");
      JsonNode rule = domain.get("rules").get(0);
      assertThat(rule.get("rule").asText()).isEqualTo("client");
      assertThat(rule.get("name").asText()).isEqualTo("per_client");
      assertThat(rule.get("limits").asText()).isEqualTo("2 per 1m");
      assertThat(rule.get("source").asText()).isEqualTo("api.yaml line 5");
      JsonNode stats = json.readTree(get(server.adminPort(), "/v1/stats", null).body());
      assertThat(stats.get("ready").asBoolean()).isTrue();
      assertThat(stats.get("backend").get("backend").asText()).isEqualTo("memory");
      assertThat(stats.get("backend").get("state").asText()).isEqualTo("up");
      assertThat(get(server.adminPort(), "/metrics", null).body())
          .contains("slidingwindow_server_backend_errors_total{backend=\"memory\"} 0.0")
          .contains("slidingwindow_server_ready 1.0");
    }
  }

  private static boolean connects(String address, int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(address, port), 2000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private HttpResponse<String> get(int port, String path, String authorization) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10));
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
