package io.slidingwindow.examples.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The example gateway as shipped (its application.yml), on a loopback port in front of a real
 * backend on another, driven by a real HTTP client.
 */
class GatewayExampleIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(5);
  private static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(TIMEOUT).version(HttpClient.Version.HTTP_1_1).build();
  private static final AtomicInteger BACKEND_HITS = new AtomicInteger();

  private static HttpServer backend;
  private static ConfigurableApplicationContext gateway;
  private static URI uri;

  @BeforeAll
  static void start() throws IOException {
    backend = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    backend.createContext(
        "/",
        exchange -> {
          BACKEND_HITS.incrementAndGet();
          byte[] body = "hello from the backend".getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    backend.start();
    gateway =
        new SpringApplicationBuilder(GatewayExampleApplication.class)
            .run(
                "--server.port=0",
                "--server.address=127.0.0.1",
                "--backend.uri=http://127.0.0.1:" + backend.getAddress().getPort());
    int port = ((WebServerApplicationContext) gateway).getWebServer().getPort();
    uri = URI.create("http://127.0.0.1:" + port);
  }

  @AfterAll
  static void stop() {
    gateway.close();
    backend.stop(0);
  }

  private static HttpResponse<String> get(String path, String apiKey) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri.resolve(path)).timeout(TIMEOUT);
    if (apiKey != null) {
      request.header("X-Api-Key", apiKey);
    }
    return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void apiRoute_fivePerTenSeconds_grantsFiveThenRefusesWithHeaders() throws Exception {
    int before = BACKEND_HITS.get();
    for (int i = 0; i < 5; i++) {
      HttpResponse<String> granted = get("/api/items", "demo");
      assertThat(granted.statusCode()).as("request %d", i + 1).isEqualTo(200);
      assertThat(granted.body()).isEqualTo("hello from the backend");
    }

    HttpResponse<String> refused = get("/api/items", "demo");

    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(refused.headers().firstValue("RateLimit-Policy"))
        .hasValue("\"api-10s\";q=5;w=10, \"api-3600s\";q=100;w=3600");
    assertThat(refused.headers().firstValue("RateLimit"))
        .hasValueSatisfying(v -> assertThat(v).startsWith("\"api-10s\";r=0"));
    assertThat(refused.headers().firstValue("Retry-After"))
        .hasValueSatisfying(v -> assertThat(Long.parseLong(v)).isBetween(1L, 11L));
    assertThat(BACKEND_HITS.get() - before).as("requests that reached the backend").isEqualTo(5);
  }

  @Test
  void apiRoute_otherKeysAndTheClientAddress_countApart() throws Exception {
    for (int i = 0; i < 5; i++) {
      assertThat(get("/api/a", "other").statusCode()).isEqualTo(200);
    }
    assertThat(get("/api/a", "other").statusCode()).isEqualTo(429);

    assertThat(get("/api/a", "third").statusCode()).isEqualTo(200);
    assertThat(get("/api/a", null).statusCode()).as("keyed by address").isEqualTo(200);
  }
}
