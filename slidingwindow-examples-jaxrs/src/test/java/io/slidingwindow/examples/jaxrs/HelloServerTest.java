package io.slidingwindow.examples.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.testkit.FakeTicker;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.glassfish.grizzly.http.server.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The example as shipped, on Grizzly over loopback, with a real HTTP client. */
class HelloServerTest {

  private final FakeTicker ticker = new FakeTicker();
  private final HttpClient client =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private HttpServer server;

  @BeforeEach
  void start() {
    server = HelloServer.start(0, ticker);
  }

  @AfterEach
  void stop() {
    server.shutdownNow();
  }

  private HttpResponse<String> hello() throws Exception {
    int port = server.getListener("grizzly").getPort();
    return client.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/hello"))
            .timeout(Duration.ofSeconds(20))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void hello_fiveTimes200_then429WithRetryAfterAndRateLimitHeaders() throws Exception {
    for (int i = 0; i < 5; i++) {
      HttpResponse<String> ok = hello();
      assertThat(ok.statusCode()).isEqualTo(200);
      assertThat(ok.body()).isEqualTo("Hello");
      assertThat(ok.headers().firstValue("RateLimit")).contains("\"hello\";r=" + (4 - i) + ";t=11");
      ticker.advance(Duration.ofSeconds(1));
    }

    HttpResponse<String> refused = hello();

    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(refused.headers().firstValue("Retry-After")).contains("6");
    assertThat(refused.headers().firstValue("RateLimit-Policy")).contains("\"hello\";q=5;w=10");
    assertThat(refused.headers().firstValue("RateLimit")).contains("\"hello\";r=0;t=6");
    assertThat(refused.body()).contains("\"status\":429").contains("retry after 6 seconds");

    ticker.advance(Duration.ofSeconds(6));
    assertThat(hello().statusCode()).isEqualTo(200);
  }

  @Test
  void port_readAndChecked() {
    assertThat(HelloServer.port(new String[] {"--port", "9090"}, 1)).isEqualTo(9090);
    assertThat(HelloServer.port(new String[] {"--port=9091"}, 1)).isEqualTo(9091);
    assertThat(HelloServer.port(new String[] {}, 8080)).isEqualTo(8080);
    assertThatThrownBy(() -> HelloServer.port(new String[] {"--port", "x"}, 1))
        .hasMessageContaining("--port");
  }
}
