package io.slidingwindow.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.servlet.context.ServletWebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The demo API as shipped, sent the four spellings that once reached {@code /v1/product/{id}}
 * without being counted by the rule {@code product}: with the path firewall (the default) they are
 * answered 400; with it off they reach the handler and the rule counts each of them.
 */
class PathSpellingTest {

  private static final String[] SPELLINGS = {
    "/v1/product/..;", "/v1/product/..;jsessionid=x", "/v1/product/%2e%2e", "/v1/product/%2E."
  };

  private static final Pattern REMAINING = Pattern.compile("\"product-2s\";r=(\\d+)");

  @ParameterizedTest(name = "path firewall enabled={0}")
  @ValueSource(booleans = {true, false})
  void issueSpellings_areRefusedOrCounted(boolean firewall) throws Exception {
    try (ConfigurableApplicationContext context =
        // As arguments: they win over application.yml's port 8080, where default properties
        // (SpringApplicationBuilder.properties) would lose to it.
        new SpringApplicationBuilder(DemoApplication.class)
            .run(
                "--server.port=0",
                "--management.server.port=0",
                "--spring.main.banner-mode=off",
                "--slidingwindow.http.path-firewall.enabled=" + firewall)) {
      int port = ((ServletWebServerApplicationContext) context).getWebServer().getPort();
      int remaining = remaining(get(port, "/v1/product/1"));
      for (String spelling : SPELLINGS) {
        String response = get(port, spelling);
        if (firewall) {
          assertThat(response).startsWith("HTTP/1.1 400");
          assertThat(response).containsIgnoringCase("Content-Type: application/problem+json");
          assertThat(response).doesNotContain("\"id\"");
        } else {
          assertThat(response).as(spelling).startsWith("HTTP/1.1 200");
          assertThat(response).as("the handler ran for " + spelling).contains("\"id\":\"..\"");
          int now = remaining(response);
          assertThat(now).as("the rule counted " + spelling).isEqualTo(remaining - 1);
          remaining = now;
        }
      }
      assertThat(remaining(get(port, "/v1/product/2")))
          .as("with the firewall on, nothing was counted in between")
          .isEqualTo(firewall ? 498 : 494);
    }
  }

  private static int remaining(String response) {
    Matcher m = REMAINING.matcher(response);
    assertThat(m.find()).as("a RateLimit header for product in %s", response).isTrue();
    return Integer.parseInt(m.group(1));
  }

  /** One GET with the target as given, byte for byte; the whole response as text. */
  private static String get(int port, String target) throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5_000);
      socket.setSoTimeout(10_000);
      socket
          .getOutputStream()
          .write(
              ("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      byte[] buffer = new byte[8192];
      for (int n; (n = in.read(buffer)) >= 0 && bytes.size() < 1_000_000; ) {
        bytes.write(buffer, 0, n);
      }
      return bytes.toString(StandardCharsets.ISO_8859_1);
    }
  }
}
