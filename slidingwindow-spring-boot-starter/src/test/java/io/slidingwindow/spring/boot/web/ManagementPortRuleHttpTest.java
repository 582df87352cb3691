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
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * A rule over actuator paths, with the actuator on a management port of its own: the rate limit
 * filter belongs to the application's server, not the management server (a child context with a
 * server of its own), so the rule counts nothing there; docs/http.md says so, and the start-up
 * warns. A rule that also counted there would count liveness probes under rules over every path.
 * Real Tomcat on 127.0.0.1, a real HTTP client.
 */
class ManagementPortRuleHttpTest {

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean
    FakeTicker ticker() {
      return new FakeTicker();
    }
  }

  private ConfigurableApplicationContext application;

  @AfterEach
  void stop() {
    if (application != null) {
      application.close();
    }
  }

  @Test
  void ruleOverActuatorPaths_managementPortOfItsOwn_notCountedThere() throws Exception {
    Map<String, Object> properties = new HashMap<>();
    properties.put("server.address", "127.0.0.1");
    properties.put("server.port", 0);
    properties.put("management.server.port", 0);
    properties.put("management.server.address", "127.0.0.1");
    properties.put("management.endpoints.web.exposure.include", "info");
    properties.put("slidingwindow.http.rules.actuator.paths", "/actuator/**");
    properties.put("slidingwindow.http.rules.actuator.limits[0].permits", 1);
    properties.put("slidingwindow.http.rules.actuator.limits[0].window", "1m");
    try (LogCapture logged = LogCapture.of(ManagementPortCheck.class.getName())) {
      application = new SpringApplicationBuilder(App.class).properties(properties).run();
      assertThat(logged.messages(Level.WARNING))
          .as("the start-up warning that the rule does not reach the management port")
          .singleElement()
          .asString()
          .contains("rule 'actuator'");
    }
    int port = Integer.parseInt(application.getEnvironment().getProperty("local.management.port"));
    List<Integer> statuses = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      statuses.add(LoopbackHttp.get(port, "/actuator/info").statusCode());
    }
    assertThat(statuses)
        .as("/actuator/info three times on the management port, under a rule of one a minute")
        .containsExactly(200, 200, 200);
  }
}
