package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.testkit.FakeTicker;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.TestPropertySource;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Rules reloaded on Spring Cloud's {@link EnvironmentChangeEvent} in a running application, the
 * same scenarios on each web stack (the subclasses start a real server), driven by a real HTTP
 * client: new values are put in a property source of the environment and the event published, as
 * Spring Cloud does after a refresh. Each test uses its own rules and takes its values away again.
 */
@TestPropertySource(
    properties = {
      "server.address=127.0.0.1",
      "management.endpoints.web.exposure.include=slidingwindow",
      "slidingwindow.http.rules.kept.paths=/r/kept",
      "slidingwindow.http.rules.kept.key=global",
      "slidingwindow.http.rules.kept.limits[0].permits=2",
      "slidingwindow.http.rules.kept.limits[0].window=1m",
      "slidingwindow.http.rules.changed.paths=/r/changed",
      "slidingwindow.http.rules.changed.key=global",
      "slidingwindow.http.rules.changed.limits[0].permits=2",
      "slidingwindow.http.rules.changed.limits[0].window=1m",
      "slidingwindow.http.rules.steady.paths=/r/steady",
      "slidingwindow.http.rules.steady.key=global",
      "slidingwindow.http.rules.steady.limits[0].permits=1",
      "slidingwindow.http.rules.steady.limits[0].window=1m",
      "slidingwindow.http.rules.counted.paths=/r/counted",
      "slidingwindow.http.rules.counted.key=global",
      "slidingwindow.http.rules.counted.limits[0].permits=3",
      "slidingwindow.http.rules.counted.limits[0].window=1m",
      "slidingwindow.http.rules.status.paths=/r/status",
      "slidingwindow.http.rules.status.key=global",
      "slidingwindow.http.rules.status.limits[0].permits=1",
      "slidingwindow.http.rules.status.limits[0].window=1m",
    })
abstract class RuleReloadScenarios {

  @SpringBootApplication
  static class App {
    @Bean
    FakeTicker ticker() {
      return new FakeTicker(3_000_000_000L);
    }

    @RestController
    static class Api {
      @GetMapping({
        "/r/kept",
        "/r/kept2",
        "/r/changed",
        "/r/added",
        "/r/steady",
        "/r/status",
        "/r/counted",
        "/r/clash",
        "/r/brief"
      })
      String ok() {
        return "ok";
      }

      @GetMapping("/r/annotated")
      @RateLimit(name = "annotated", limits = "1/1m")
      String annotated() {
        return "ok";
      }
    }
  }

  @LocalServerPort int port;
  @Autowired ConfigurableApplicationContext context;

  private int status(String path) throws IOException, InterruptedException {
    return LoopbackHttp.get(port, path).statusCode();
  }

  /** Puts {@code values} above every other property source and tells of the change. */
  private void change(String source, Map<String, Object> values) {
    context.getEnvironment().getPropertySources().addFirst(new MapPropertySource(source, values));
    context.publishEvent(new EnvironmentChangeEvent(context, values.keySet()));
  }

  /** Takes the values of {@code source} away again and tells of the change. */
  private void undo(String source) {
    MapPropertySource removed =
        (MapPropertySource) context.getEnvironment().getPropertySources().remove(source);
    if (removed != null) {
      context.publishEvent(new EnvironmentChangeEvent(context, removed.getSource().keySet()));
    }
  }

  @Test
  void reload_keepsTheCountsOfRulesWhoseKeyAndLimitsStayAndRebuildsTheRest() throws Exception {
    assertThat(status("/r/kept")).isEqualTo(200);
    assertThat(status("/r/kept")).isEqualTo(200);
    assertThat(status("/r/kept")).isEqualTo(429);
    assertThat(status("/r/changed")).isEqualTo(200);
    assertThat(status("/r/changed")).isEqualTo(200);
    assertThat(status("/r/changed")).isEqualTo(429);
    assertThat(status("/r/added")).isEqualTo(200);
    assertThat(status("/r/added")).isEqualTo(200);
    Map<String, Object> values = new HashMap<>();
    values.put("slidingwindow.http.rules.kept.paths[0]", "/r/kept");
    values.put("slidingwindow.http.rules.kept.paths[1]", "/r/kept2");
    values.put("slidingwindow.http.rules.changed.limits[0].permits", "3");
    values.put("slidingwindow.http.rules.changed.limits[0].window", "1m"); // a list is replaced
    values.put("slidingwindow.http.rules.added.paths", "/r/added");
    values.put("slidingwindow.http.rules.added.limits[0].permits", "1");
    values.put("slidingwindow.http.rules.added.limits[0].window", "1m");
    try {
      change("reload-test", values);

      assertThat(status("/r/kept")).as("counts kept").isEqualTo(429);
      assertThat(status("/r/kept2")).as("new path, same limiter").isEqualTo(429);
      assertThat(status("/r/changed")).as("new limits count from zero").isEqualTo(200);
      assertThat(status("/r/changed")).isEqualTo(200);
      assertThat(status("/r/changed")).isEqualTo(200);
      assertThat(status("/r/changed")).isEqualTo(429);
      assertThat(status("/r/added")).isEqualTo(200);
      assertThat(status("/r/added")).isEqualTo(429);
    } finally {
      undo("reload-test");
    }
  }

  @Test
  void reload_countStatuses_appliesFromTheNextRequestAndKeepsTheCounts() throws Exception {
    assertThat(status("/r/counted")).isEqualTo(200);
    try {
      change(
          "count-statuses-test",
          Map.of("slidingwindow.http.rules.counted.count-statuses[0]", "500-599"));
      for (int i = 0; i < 6; i++) {
        assertThat(status("/r/counted")).as("200 no longer counts").isEqualTo(200);
      }
      change(
          "bad-count-statuses-test",
          Map.of("slidingwindow.http.rules.counted.count-statuses[0]", "5xx"));
      assertThat(status("/r/counted")).as("a bad value leaves the rule in service").isEqualTo(200);
    } finally {
      undo("bad-count-statuses-test");
      undo("count-statuses-test");
    }

    assertThat(status("/r/counted"))
        .as("every request counts again, the first one kept")
        .isEqualTo(200);
    assertThat(status("/r/counted")).isEqualTo(200);
    assertThat(status("/r/counted")).isEqualTo(429);
  }

  @Test
  void reload_invalidConfiguration_keepsTheRulesInService() throws Exception {
    assertThat(status("/r/steady")).isEqualTo(200);
    try {
      change(
          "bad-reload-test",
          Map.of(
              "slidingwindow.http.rules.steady.limits[0].permits", "0",
              "slidingwindow.http.rules.steady.limits[0].window", "1m"));

      assertThat(status("/r/steady")).as("the old rule and its count").isEqualTo(429);
    } finally {
      undo("bad-reload-test");
    }
    assertThat(status("/r/steady")).as("same rule again, same count").isEqualTo(429);
  }

  @Test
  void reload_ruleNamedLikeAnAnnotation_isRefusedAndTheRulesInServiceStay() throws Exception {
    try {
      change(
          "clash-reload-test",
          Map.of(
              "slidingwindow.http.rules.annotated.paths", "/r/clash",
              "slidingwindow.http.rules.annotated.key", "global",
              "slidingwindow.http.rules.annotated.limits[0].permits", "1",
              "slidingwindow.http.rules.annotated.limits[0].window", "1m"));

      assertThat(status("/r/clash")).isEqualTo(200);
      assertThat(status("/r/clash")).as("no rule on it: the reload was refused").isEqualTo(200);
    } finally {
      undo("clash-reload-test");
    }
  }

  /**
   * What reloads and what does not, as docs/spring.md says: the rules follow a new {@code refusal},
   * while a {@link RateLimit} method keeps the refusal it was built with at start-up.
   */
  @Test
  void reload_newRefusalStatus_appliesToRulesNotToAnnotations() throws Exception {
    try {
      change("refusal-reload-test", Map.of("slidingwindow.http.refusal.status", "503"));

      assertThat(status("/r/status")).isEqualTo(200);
      assertThat(status("/r/status")).as("a rule, reloaded").isEqualTo(503);
      assertThat(status("/r/annotated")).isEqualTo(200);
      assertThat(status("/r/annotated")).as("an annotation, as at start-up").isEqualTo(429);
    } finally {
      undo("refusal-reload-test");
    }
  }

  /** The rule names the dashboard feed shows: in its configuration, and with series. */
  private List<String> dashboardRules() throws IOException, InterruptedException {
    JsonNode feed =
        new ObjectMapper().readTree(LoopbackHttp.get(port, "/actuator/slidingwindow").body());
    List<String> names = new ArrayList<>();
    for (JsonNode rule : feed.path("config").path("domains").path(0).path("rules")) {
      names.add("config:" + rule.path("rule").asText());
    }
    for (JsonNode series : feed.path("rules")) {
      names.add("series:" + series.path("rule").asText());
    }
    for (JsonNode key : feed.path("topRefused")) {
      names.add("refused:" + key.path("rule").asText());
    }
    return names;
  }

  @Test
  void reload_removedRule_leavesTheDashboard() throws Exception {
    try {
      change(
          "brief-reload-test",
          Map.of(
              "slidingwindow.http.rules.brief.paths", "/r/brief",
              "slidingwindow.http.rules.brief.key", "global",
              "slidingwindow.http.rules.brief.limits[0].permits", "1",
              "slidingwindow.http.rules.brief.limits[0].window", "1m"));
      assertThat(status("/r/brief")).isEqualTo(200);
      assertThat(status("/r/brief")).isEqualTo(429);
      assertThat(dashboardRules())
          .contains("config:brief", "series:brief", "refused:brief", "config:steady");
    } finally {
      undo("brief-reload-test");
    }

    assertThat(status("/r/brief")).as("the rule is gone").isEqualTo(200);
    assertThat(dashboardRules())
        .doesNotContain("config:brief", "series:brief", "refused:brief")
        .contains("config:steady", "config:annotated");
  }

  @Test
  void reload_changeOutsideTheRules_leavesThemAlone() throws Exception {
    assertThat(SlidingWindowReloadAutoConfiguration.touchesRules(java.util.Set.of("server.port")))
        .isFalse();
    assertThat(
            SlidingWindowReloadAutoConfiguration.touchesRules(
                java.util.Set.of("SLIDINGWINDOW_HTTP_RULES_A_KEY")))
        .isTrue();
  }
}
