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
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.embedded.netty.NettyReactiveWebServerFactory;
import org.springframework.boot.web.embedded.tomcat.TomcatReactiveWebServerFactory;
import org.springframework.boot.web.embedded.tomcat.TomcatServletWebServerFactory;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * The {@code slidingwindow} endpoint's guarded reads (the feed, a key's quota) sent without a
 * {@code Host} header, over raw sockets to a real server on 127.0.0.1: Tomcat (servlet), Tomcat
 * (WebFlux) and Reactor Netty (WebFlux).
 *
 * <p>HTTP/1.0 allows a request without {@code Host} ({@code curl --http1.0}, old clients and
 * probes); a browser always names the host it sent the request to, so such a request is no web
 * page's, rebound or not, and is served: the guard has no host name to judge, and does not judge
 * the name the server puts in its place, which says nothing of where the request came from. Tomcat
 * puts its own there (a reverse lookup of the local address: {@code localhost} for 127.0.0.1, the
 * machine's name for its network address) or its connector's {@code proxyName}, here {@code
 * ops-box}, which stands for the machine's name; Reactor Netty puts {@code localhost}. A browser's
 * headers on such a request are judged as on any request. HTTP/1.1 requires {@code Host}: Tomcat
 * answers 400 without it, before the guard sees the request; Reactor Netty serves it, and the guard
 * takes it as it takes HTTP/1.0.
 */
class EndpointWithoutHostTest {

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(PlanChangeScenarios.Plans.class)
  static class App {
    @Bean
    FakeTicker ticker() {
      return new FakeTicker();
    }
  }

  /** The name Tomcat gives a request without {@code Host}, in place of the machine's. */
  private static final String SERVER_NAME = "ops-box";

  static class TomcatServlet {
    @Bean
    TomcatServletWebServerFactory tomcat() {
      TomcatServletWebServerFactory factory = new TomcatServletWebServerFactory();
      factory.addConnectorCustomizers(connector -> connector.setProxyName(SERVER_NAME));
      return factory;
    }
  }

  static class TomcatReactive {
    @Bean
    TomcatReactiveWebServerFactory tomcat() {
      TomcatReactiveWebServerFactory factory = new TomcatReactiveWebServerFactory();
      factory.addConnectorCustomizers(connector -> connector.setProxyName(SERVER_NAME));
      return factory;
    }
  }

  static class Netty {
    @Bean
    NettyReactiveWebServerFactory netty() {
      return new NettyReactiveWebServerFactory();
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

  private void start(String stack, String server) {
    Map<String, Object> properties = new HashMap<>();
    properties.put("spring.main.web-application-type", stack);
    properties.put("server.address", "127.0.0.1");
    properties.put("server.port", 0);
    properties.put("management.endpoints.web.exposure.include", "slidingwindow");
    properties.put("slidingwindow.http.rules.api.paths", "/api/**");
    properties.put("slidingwindow.http.rules.api.key", "header:X-Api-Key");
    properties.put("slidingwindow.http.rules.api.limits[0].permits", 2);
    properties.put("slidingwindow.http.rules.api.limits[0].window", "1m");
    properties.put("slidingwindow.http.rules.api.plans.free.limits[0].permits", 5);
    properties.put("slidingwindow.http.rules.api.plans.free.limits[0].window", "1m");
    properties.put("slidingwindow.http.rules.api.plan-resolver", "apiPlans");
    Class<?> factory =
        switch (server) {
          case "tomcat" -> stack.equals("servlet") ? TomcatServlet.class : TomcatReactive.class;
          case "netty" -> Netty.class;
          default -> throw new IllegalArgumentException("server: " + server);
        };
    application = new SpringApplicationBuilder(App.class, factory).properties(properties).run();
    port = Integer.parseInt(application.getEnvironment().getProperty("local.server.port"));
  }

  /**
   * {@code GET path} over {@code version}, with a {@code Host} naming {@code host} unless it is
   * null, and {@code headers} (name, value, ...): the response as received, status line first.
   */
  private String get(String version, String path, String host, String... headers)
      throws IOException {
    StringBuilder request = new StringBuilder("GET " + path + " " + version + "\r\n");
    if (host != null) {
      request.append("Host: ").append(host).append("\r\n");
    }
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

  @ParameterizedTest(name = "{0} on {1}")
  @CsvSource({"servlet, tomcat", "reactive, tomcat", "reactive, netty"})
  void guardedReads_http10WithoutHost_servedAsNoBrowserSendsThem(String stack, String server)
      throws Exception {
    start(stack, server);
    String peek = "/actuator/slidingwindow/api/header:x-api-key:free-1";
    for (String path : List.of("/actuator/slidingwindow", peek)) {
      assertThat(get("HTTP/1.0", path, null)).as(path).matches("(?s)HTTP/1\\.[01] 200 .*");
      // A browser's header on a request no browser sent: judged as on any other.
      assertThat(get("HTTP/1.0", path, null, "Sec-Fetch-Site", "cross-site"))
          .as(path + ", Sec-Fetch-Site: cross-site")
          .matches("(?s)HTTP/1\\.[01] 403 .*")
          .contains("a web page of another origin (Sec-Fetch-Site: cross-site)");
      assertThat(get("HTTP/1.0", path, null, "Origin", "http://evil.test"))
          .as(path + ", Origin: http://evil.test")
          .matches("(?s)HTTP/1\\.[01] 403 .*")
          .contains("a web page of another origin (Origin: http://evil.test)");
      // With a Host, an HTTP/1.0 request is judged by it, as one over HTTP/1.1.
      assertThat(get("HTTP/1.0", path, "rebound.test:" + port))
          .as(path + ", HTTP/1.0 at a host name")
          .matches("(?s)HTTP/1\\.[01] 403 .*")
          .contains("a request at a host name (Host: rebound.test:" + port + ")");
      assertThat(get("HTTP/1.1", path, "rebound.test:" + port))
          .as(path + ", HTTP/1.1 at a host name")
          .matches("(?s)HTTP/1\\.1 403 .*");
      assertThat(get("HTTP/1.0", path, "127.0.0.1:" + port))
          .as(path + ", HTTP/1.0 at the loopback address")
          .matches("(?s)HTTP/1\\.[01] 200 .*");
      assertThat(get("HTTP/1.1", path, null))
          .as(path + ", HTTP/1.1 without Host")
          .matches(server.equals("tomcat") ? "(?s)HTTP/1\\.1 400 .*" : "(?s)HTTP/1\\.1 200 .*");
    }
  }
}
