package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

class ManagementPortCheckTest {

  private static SlidingWindowHttpProperties rules(String... paths) {
    SlidingWindowHttpProperties properties = new SlidingWindowHttpProperties();
    SlidingWindowHttpProperties.Rule rule = new SlidingWindowHttpProperties.Rule();
    rule.setPaths(List.of(paths));
    properties.getRules().put("ops", rule);
    return properties;
  }

  private static List<String> warnings(MockEnvironment environment, String... paths) {
    return new ManagementPortCheck(environment, rules(paths)).warnings();
  }

  @Test
  void ruleNamingTheActuator_managementPortOfItsOwn_warnsNamingTheRuleAndPort() {
    MockEnvironment environment =
        new MockEnvironment().withProperty("management.server.port", "8090");

    assertThat(warnings(environment, "/api/**", "/actuator/**", "/actuator/health"))
        .singleElement()
        .asString()
        .contains("rule 'ops'")
        .contains("[/actuator/**, /actuator/health]")
        .contains("management.server.port=8090")
        .doesNotContain("/api/**");
    assertThat(warnings(environment, "/actuator")).hasSize(1);
    assertThat(warnings(environment, "/actuator*")).hasSize(1);
    assertThat(warnings(environment, "/actuators/**")).isEmpty();
  }

  @Test
  void customBasePath_isTheOneLookedFor() {
    MockEnvironment environment =
        new MockEnvironment()
            .withProperty("management.server.port", "0")
            .withProperty("server.port", "0")
            .withProperty("management.endpoints.web.base-path", "/ops/");

    assertThat(warnings(environment, "/ops/**")).hasSize(1);
    assertThat(warnings(environment, "/actuator/**", "/opsx/**")).isEmpty();
  }

  @Test
  void noWarning_sameServer_orNoManagementServer_orRulesOverEveryPath() {
    assertThat(warnings(new MockEnvironment(), "/actuator/**")).as("no management port").isEmpty();
    assertThat(
            warnings(
                new MockEnvironment()
                    .withProperty("management.server.port", "8080")
                    .withProperty("server.port", "8080"),
                "/actuator/**"))
        .as("the application's own port")
        .isEmpty();
    assertThat(
            warnings(
                new MockEnvironment().withProperty("management.server.port", "-1"), "/actuator/**"))
        .as("no management server over HTTP")
        .isEmpty();
    assertThat(
            warnings(
                new MockEnvironment().withProperty("management.server.port", "8090"), "/**", "/*"))
        .as("rules over every path are not about the actuator")
        .isEmpty();
  }
}
