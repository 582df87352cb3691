package io.slidingwindow.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.testkit.redis.WithoutRedisServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The body endpoints of both ports take a body only when it is declared {@code application/json}: a
 * page in a browser can send a body as {@code text/plain} or a form to any address without asking
 * first, but must ask (and is refused) before sending {@code application/json}. A page whose host
 * name was rebound to the service's address need not ask, but its browser names the page's origin
 * ({@code Origin}, {@code Sec-Fetch-*}), which no service client sends: such requests are refused
 * too. Real service, real HTTP client.
 */
@WithoutRedisServer
class ContentTypeIT {

  private static final String CONFIG =
      """
      domain: api
      descriptors:
        - key: api_key
          rate_limit: {unit: minute, requests_per_unit: 1}
      """;

  /** Content types a refused request declares; null sends none. */
  private static final List<String> REFUSED =
      Arrays.asList(
          "text/plain",
          "text/plain;charset=UTF-8",
          "application/x-www-form-urlencoded",
          "multipart/form-data; boundary=x",
          null,
          "application/json; charset=iso-8859-1",
          "application/json, text/plain",
          "application/jsonx",
          "application/problem+json");

  @TempDir Path dir;
  private final FakeTicker ticker = new FakeTicker();
  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final ObjectMapper json = new ObjectMapper();
  private RateLimitServer server;
  private String token;

  private void start(RateLimitServer.Builder builder) throws IOException, ConfigException {
    server = builder.ticker(ticker).start();
  }

  private RateLimitServer.Builder builder() throws IOException {
    Path config = dir.resolve("api.yaml");
    Files.writeString(config, CONFIG);
    return TestServers.onLoopback(config);
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"/v1/decide", "/json"})
  void decision_withoutJsonContentType_answered415AndCountsNothing(String path) throws Exception {
    start(builder());
    String body = decideBody("k");

    for (String type : REFUSED) {
      assertError(send(server.httpPort(), "POST", path, body, type), 415, String.valueOf(type));
    }

    HttpResponse<String> first =
        send(server.httpPort(), "POST", path, body, "application/json; charset=UTF-8");
    assertThat(first.statusCode())
        .as("the refused requests took nothing of a limit of 1: " + first.body())
        .isEqualTo(200);
    HttpResponse<String> second = send(server.httpPort(), "POST", path, body, "APPLICATION/JSON");
    assertThat(second.statusCode()).as("decided, over the limit: " + second.body()).isEqualTo(429);
    String metrics = metrics();
    assertThat(metrics)
        .contains(
            "slidingwindow_server_request_errors_total{reason=\"unsupported_media_type\","
                + "transport=\"http\"} "
                + REFUSED.size()
                + ".0",
            "slidingwindow_server_decisions_total{descriptor=\"api_key\",domain=\"api\","
                + "outcome=\"ok\"} 1.0",
            "slidingwindow_server_decisions_total{descriptor=\"api_key\",domain=\"api\","
                + "outcome=\"over_limit\"} 1.0",
            "slidingwindow_server_requests_seconds_count{transport=\"http\"} 2");
  }

  @ParameterizedTest
  @ValueSource(strings = {"/v1/decide", "/json"})
  void decision_fromBrowser_answered403AndCountsNothing(String path) throws Exception {
    start(builder());
    String body = decideBody("k");
    List<String[]> browserHeaders =
        List.of(
            new String[] {"Origin", "http://evil.example"},
            new String[] {"Origin", "http://127.0.0.1:" + server.httpPort()},
            new String[] {"Origin", "null"},
            new String[] {"Sec-Fetch-Site", "same-origin"});

    for (String[] header : browserHeaders) {
      HttpResponse<String> refused =
          client.send(
              TestServers.request(server.httpPort(), "POST", path, body, "application/json")
                  .header(header[0], header[1])
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(refused.statusCode())
          .as(header[0] + ": " + header[1] + " -> " + refused.body())
          .isEqualTo(403);
      assertThat(json.readTree(refused.body()).get("error").asText()).contains("browser");
    }

    assertThat(send(server.httpPort(), "POST", path, body, "application/json").statusCode())
        .as("the refused requests took nothing of a limit of 1")
        .isEqualTo(200);
    assertThat(metrics())
        .contains(
            "slidingwindow_server_request_errors_total{reason=\"browser_origin\","
                + "transport=\"http\"} "
                + browserHeaders.size()
                + ".0",
            "slidingwindow_server_decisions_total{descriptor=\"api_key\",domain=\"api\","
                + "outcome=\"ok\"} 1.0",
            "slidingwindow_server_requests_seconds_count{transport=\"http\"} 1");
  }

  @ParameterizedTest
  @ValueSource(strings = {"/v1/decide", "/json"})
  void decision_secFetchModeAlone_isServed(String path) throws Exception {
    start(builder());

    // Node.js's fetch sends Sec-Fetch-Mode: cors from servers too; it names no origin.
    HttpResponse<String> answer =
        client.send(
            TestServers.request(
                    server.httpPort(), "POST", path, decideBody("n"), "application/json")
                .header("Sec-Fetch-Mode", "cors")
                .build(),
            HttpResponse.BodyHandlers.ofString());

    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
  }

  @Test
  void admin_fromBrowser_answered403AndChangesNothing() throws Exception {
    start(builder());
    assertThat(decide("a").statusCode()).isEqualTo(200);
    assertThat(decide("a").statusCode()).isEqualTo(429);
    String origin = "http://localhost:" + server.adminPort();

    assertThat(
            raw(
                "PUT",
                "/v1/overrides",
                "127.0.0.1",
                "application/json",
                override("a", "5/60s"),
                "Origin: " + origin))
        .startsWith("HTTP/1.1 403");
    assertThat(
            raw(
                "DELETE",
                "/v1/quota",
                "localhost",
                "application/json",
                descriptor("a"),
                "Sec-Fetch-Site: same-origin"))
        .startsWith("HTTP/1.1 403");

    assertThat(decide("a").statusCode()).as("neither raised nor reset").isEqualTo(429);
    assertThat(json.readTree(admin("GET", "/v1/overrides", null, null).body()).get("overrides"))
        .isEmpty();
  }

  @Test
  void decision_otherRefusalsComeFirst() throws Exception {
    start(builder());

    assertThat(send(server.httpPort(), "POST", "/v1/nothing", "{}", "text/plain").statusCode())
        .isEqualTo(404);
    assertThat(send(server.httpPort(), "PUT", "/v1/decide", "{}", "text/plain").statusCode())
        .isEqualTo(405);
    assertError(
        send(server.httpPort(), "POST", "/v1/decide", "x".repeat(1_100_000), "text/plain"),
        413,
        "at most 1048576 bytes");
    assertError(
        send(server.httpPort(), "POST", "/v1/decide", "{\"domain\": ", "application/json"),
        400,
        "malformed JSON");
  }

  @Test
  void admin_withoutJsonContentType_answered415AndChangesNothing() throws Exception {
    start(builder());
    assertThat(decide("a").statusCode()).isEqualTo(200);
    assertThat(decide("a").statusCode()).isEqualTo(429);
    assertThat(
            admin("PUT", "/v1/overrides", override("o", "5/60s"), "application/json").statusCode())
        .isEqualTo(200);

    for (String type : REFUSED) {
      assertError(admin("PUT", "/v1/overrides", override("a", "5/60s"), type), 415, "PUT " + type);
      assertError(admin("DELETE", "/v1/overrides", descriptor("o"), type), 415, "DELETE " + type);
      assertError(admin("POST", "/v1/quota", descriptor("a"), type), 415, "POST " + type);
      assertError(admin("DELETE", "/v1/quota", descriptor("a"), type), 415, "reset " + type);
    }

    assertThat(decide("a").statusCode()).as("neither raised nor reset").isEqualTo(429);
    JsonNode listed =
        json.readTree(admin("GET", "/v1/overrides", null, null).body()).get("overrides");
    assertThat(listed).hasSize(1);
    assertThat(listed.get(0).get("entries").get(0).get("value").asText()).isEqualTo("o");
  }

  @Test
  void admin_jsonWithParametersOrInCapitals_accepted() throws Exception {
    start(builder());
    String utf8 = "application/json; charset=UTF-8";
    String capitals = "APPLICATION/JSON";

    assertThat(admin("PUT", "/v1/overrides", override("a", "5/60s"), utf8).statusCode())
        .isEqualTo(200);
    assertThat(admin("PUT", "/v1/overrides", override("b", "5/60s"), capitals).statusCode())
        .isEqualTo(200);
    assertThat(admin("POST", "/v1/quota", descriptor("a"), capitals).statusCode()).isEqualTo(200);
    assertThat(admin("DELETE", "/v1/quota", descriptor("a"), utf8).statusCode()).isEqualTo(200);
    assertThat(admin("DELETE", "/v1/overrides", descriptor("a"), capitals).statusCode())
        .isEqualTo(200);
    assertThat(admin("DELETE", "/v1/overrides", descriptor("b"), utf8).statusCode()).isEqualTo(200);
  }

  @Test
  void admin_tokenAndHostAreCheckedFirst() throws Exception {
    start(builder());
    String body = override("h", "5/60s");

    assertThat(raw("PUT", "/v1/overrides", "rebound.example", "text/plain", body))
        .startsWith("HTTP/1.1 403");
    assertThat(raw("PUT", "/v1/overrides", "127.0.0.1", "text/plain", body))
        .startsWith("HTTP/1.1 415");
    server.close();

    token = "adm1n-token";
    start(builder().adminToken(token.toCharArray()));
    HttpResponse<String> without =
        send(server.adminPort(), "PUT", "/v1/overrides", body, "text/plain");
    assertThat(without.statusCode()).isEqualTo(401);
    assertThat(admin("PUT", "/v1/overrides", body, "text/plain").statusCode()).isEqualTo(415);
  }

  private void assertError(HttpResponse<String> response, int status, String what)
      throws IOException {
    assertThat(response.statusCode()).as(what + ": " + response.body()).isEqualTo(status);
    if (status == 415) {
      assertThat(json.readTree(response.body()).get("error").asText())
          .as(what)
          .contains("Content-Type: application/json");
    } else {
      assertThat(json.readTree(response.body()).get("error").asText()).contains(what);
    }
  }

  private HttpResponse<String> decide(String key) throws Exception {
    return send(server.httpPort(), "POST", "/v1/decide", decideBody(key), "application/json");
  }

  private HttpResponse<String> admin(String method, String path, String body, String type)
      throws Exception {
    HttpRequest.Builder request = TestServers.request(server.adminPort(), method, path, body, type);
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> send(int port, String method, String path, String body, String type)
      throws Exception {
    return client.send(
        TestServers.request(port, method, path, body, type).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The answer to a request sent by hand to the admin port, with the Host of the test's choice. */
  private String raw(
      String method, String path, String host, String type, String body, String... headers)
      throws IOException {
    byte[] content = body.getBytes(StandardCharsets.UTF_8);
    try (Socket socket = new Socket("127.0.0.1", server.adminPort())) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(
          (method
                  + " "
                  + path
                  + " HTTP/1.1\r\nHost: "
                  + host
                  + "\r\nContent-Type: "
                  + type
                  + "\r\n"
                  + String.join("", Arrays.stream(headers).map(h -> h + "\r\n").toList())
                  + "Content-Length: "
                  + content.length
                  + "\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.write(content);
      out.flush();
      InputStream in = socket.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private String metrics() {
    return await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () -> admin("GET", "/metrics", null, null).body(),
            body -> body.contains("requests_seconds_count{transport=\"http\"}"));
  }

  private static String decideBody(String key) {
    return "{\"domain\":\"api\",\"descriptors\":[{\"entries\":[{\"key\":\"api_key\",\"value\":\""
        + key
        + "\"}]}]}";
  }

  private static String descriptor(String key) {
    return "{\"domain\":\"api\",\"entries\":[{\"key\":\"api_key\",\"value\":\"" + key + "\"}]}";
  }

  private static String override(String key, String limit) {
    return "{\"domain\":\"api\",\"entries\":[{\"key\":\"api_key\",\"value\":\""
        + key
        + "\"}],\"limits\":[\""
        + limit
        + "\"]}";
  }
}
