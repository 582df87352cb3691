package io.slidingwindow.spring.boot.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.FakeTicker;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * The {@code slidingwindow} endpoint's guarded reads behind a proxy that passes requests on to the
 * server's own address: the proxy puts that address in {@code Host} (nginx's default) and the name
 * the browser sent in {@code X-Forwarded-Host} or {@code Forwarded: host=}. A page rebound to the
 * proxy's address is then seen only there, so the guard judges those names too, and they only ever
 * refuse more. Raw sockets to a real server on 127.0.0.1: Tomcat (servlet) and Reactor Netty
 * (WebFlux).
 */
class EndpointForwardedHostTest {

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(PlanChangeScenarios.Plans.class)
  static class App {
    @Bean
    FakeTicker ticker() {
      return new FakeTicker();
    }
  }

  private ConfigurableApplicationContext application;
  private int port;

  @AfterEach
  void stop() {
    if (application != null) {
      application.close();
    }
  }

  private void start(String stack) {
    Map<String, Object> properties = new HashMap<>();
    if (stack.endsWith("-framework")) {
      stack = stack.substring(0, stack.length() - "-framework".length());
      properties.put("server.forward-headers-strategy", "framework");
    }
    properties.put("spring.main.web-application-type", stack);
    properties.put("server.address", "127.0.0.1");
    properties.put("server.port", 0);
    properties.put("management.endpoints.web.exposure.include", "slidingwindow");
    properties.put("management.endpoints.web.cors.allowed-origins", "http://ops.test");
    properties.put("slidingwindow.http.rules.api.paths", "/api/**");
    properties.put("slidingwindow.http.rules.api.key", "header:X-Api-Key");
    properties.put("slidingwindow.http.rules.api.limits[0].permits", 2);
    properties.put("slidingwindow.http.rules.api.limits[0].window", "1m");
    properties.put("slidingwindow.http.rules.api.plans.free.limits[0].permits", 5);
    properties.put("slidingwindow.http.rules.api.plans.free.limits[0].window", "1m");
    properties.put("slidingwindow.http.rules.api.plan-resolver", "apiPlans");
    application = new SpringApplicationBuilder(App.class).properties(properties).run();
    port = Integer.parseInt(application.getEnvironment().getProperty("local.server.port"));
  }

  /** {@code GET path} with {@code Host: host} and {@code headers} (name, value, ...). */
  private String get(String path, String host, String... headers) throws IOException {
    StringBuilder request =
        new StringBuilder("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n");
    for (int i = 0; i < headers.length; i += 2) {
      request.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
    }
    request.append("Connection: close\r\n\r\n");
    try (Socket socket = new Socket(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), port)) {
      socket.setSoTimeout(20_000);
      socket.getOutputStream().write(request.toString().getBytes(StandardCharsets.ISO_8859_1));
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"servlet", "reactive", "servlet-framework", "reactive-framework"})
  void guardedReads_forwardedHostName_refusedAsAtThatHost(String stack) throws Exception {
    start(stack);
    boolean framework = stack.endsWith("-framework");
    String backend = "127.0.0.1:" + port;
    String peek = "/actuator/slidingwindow/api/header:x-api-key:free-1";
    for (String path : List.of("/actuator/slidingwindow", peek)) {
      assertThat(get(path, backend)).as(path + " at the address").matches("(?s)HTTP/1\\.1 200 .*");
      assertThat(get(path, backend, "X-Forwarded-Host", "rebound.test"))
          .as(path + ", X-Forwarded-Host: rebound.test")
          .matches("(?s)HTTP/1\\.1 403 .*")
          .contains("a request at a host name (forwarded host: rebound.test)")
          .contains("http://rebound.test");
      if (!framework) {
        // Spring's filter and transformer keep only the first of a list: the one judged there.
        assertThat(get(path, backend, "X-Forwarded-Host", "127.0.0.1, rebound.test:8080"))
            .as(path + ", a list of forwarded hosts")
            .matches("(?s)HTTP/1\\.1 403 .*");
      }
      assertThat(get(path, backend, "Forwarded", "for=192.0.2.7;host=\"rebound.test\";proto=http"))
          .as(path + ", Forwarded: host=\"rebound.test\"")
          .matches("(?s)HTTP/1\\.1 403 .*")
          .contains("(forwarded host: rebound.test)");
      assertThat(
              get(path, backend, "X-Forwarded-Host", "localhost:8080", "Forwarded", "host=[::1]"))
          .as(path + ", forwarded hosts no one can rebind")
          .matches("(?s)HTTP/1\\.1 200 .*");
      assertThat(get(path, backend, "X-Forwarded-Host", "ops.test"))
          .as(path + ", a forwarded host whose origin the CORS properties allow")
          .matches("(?s)HTTP/1\\.1 200 .*");
      assertThat(get(path, "rebound.test:" + port, "X-Forwarded-Host", "127.0.0.1"))
          .as(path + ", a forwarded address never lets a refused Host through")
          .matches("(?s)HTTP/1\\.1 403 .*")
          .contains("(Host: rebound.test:" + port + ")");
    }
    assertThat(
            get("/actuator/slidingwindow/index.html", backend, "X-Forwarded-Host", "rebound.test"))
        .as("the page's own file is not guarded")
        .matches("(?s)HTTP/1\\.1 200 .*");
  }
}
