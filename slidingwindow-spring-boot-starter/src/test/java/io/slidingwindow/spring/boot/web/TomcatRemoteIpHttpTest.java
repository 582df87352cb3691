package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.testkit.LogCapture;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Spring Boot installs Tomcat's {@code RemoteIpValve} not only for {@code
 * server.forward-headers-strategy=native} but also, for backward compatibility, as soon as {@code
 * server.tomcat.remoteip.protocol-header} or {@code remote-ip-header} is set (a common way to get
 * the {@code https} scheme right behind a proxy). The valve then takes {@code X-Forwarded-For} from
 * any peer in a private or loopback range, before any filter runs, so a client there writes a new
 * address into it for every request and gets a new quota each time. Real Tomcat on 127.0.0.1, a
 * real HTTP client; the starter cannot undo the valve, so it says so at start-up.
 */
class TomcatRemoteIpHttpTest {

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean
    FakeTicker ticker() {
      return new FakeTicker();
    }

    @RestController
    static class Api {
      @GetMapping("/api/items")
      String items() {
        return "items";
      }
    }
  }

  private ConfigurableApplicationContext application;

  @AfterEach
  void stop() {
    if (application != null) {
      application.close();
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "server.tomcat.remoteip.protocol-header",
        "server.tomcat.remoteip.remote-ip-header"
      })
  void remoteIpHeaderProperty_withoutAStrategy_clientChoosesItsKey_andTheStarterWarns(
      String property) throws Exception {
    Map<String, Object> properties = new HashMap<>();
    properties.put("server.address", "127.0.0.1");
    properties.put("server.port", 0);
    properties.put(
        property, property.endsWith("protocol-header") ? "X-Forwarded-Proto" : "X-Forwarded-For");
    properties.put("slidingwindow.http.rules.api.paths", "/api/**");
    properties.put("slidingwindow.http.rules.api.limits[0].permits", 1);
    properties.put("slidingwindow.http.rules.api.limits[0].window", "1m");
    List<String> warnings;
    try (LogCapture log = LogCapture.of(ForwardedHeadersCheck.class.getName())) {
      application = new SpringApplicationBuilder(App.class).properties(properties).run();
      warnings = log.messages(Level.WARNING);
    }
    int port = Integer.parseInt(application.getEnvironment().getProperty("local.server.port"));

    List<Integer> statuses = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      statuses.add(
          LoopbackHttp.get(port, "/api/items", "X-Forwarded-For", "203.0.113." + i).statusCode());
    }
    assertThat(statuses)
        .as("one client on 127.0.0.1 naming a new address each time: Tomcat believes it")
        .containsExactly(200, 200, 200);
    assertThat(warnings)
        .as("the start-up warning, with %s set", property)
        .singleElement()
        .asString()
        .contains(property)
        .contains("private or loopback range")
        .contains("server.tomcat.remoteip.internal-proxies");
  }
}
