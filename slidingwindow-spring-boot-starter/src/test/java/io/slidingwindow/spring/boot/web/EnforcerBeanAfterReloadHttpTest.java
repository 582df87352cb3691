package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.servlet.RateLimitEnforcer;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The starter's {@code RateLimitEnforcer} bean, called by a handler besides the starter's filter,
 * after a reload of the rules: the bean applies the rules in service, those the filter applied to
 * the request, so that a rule counts the request once, and a reload's new limit binds the bean's
 * callers too. On a real Tomcat with a real HTTP client.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = EnforcerBeanAfterReloadHttpTest.App.class,
    properties = {
      "spring.main.web-application-type=servlet",
      "server.address=127.0.0.1",
      "slidingwindow.http.rules.once.paths=/d/**",
      "slidingwindow.http.rules.once.key=global",
      "slidingwindow.http.rules.once.limits[0].permits=3",
      "slidingwindow.http.rules.once.limits[0].window=1m",
      "slidingwindow.http.rules.own.paths=/own/**",
      "slidingwindow.http.rules.own.key=global",
      "slidingwindow.http.rules.own.limits[0].permits=100",
      "slidingwindow.http.rules.own.limits[0].window=1m"
    })
class EnforcerBeanAfterReloadHttpTest {

  @SpringBootApplication
  @Import(TomcatOnAFakeTicker.class)
  static class App {

    @RestController
    static class Api {

      @Autowired RateLimitEnforcer enforcer;

      /** Enforces the bean's rules once more, as an application calling it itself. */
      @GetMapping({"/d/own", "/own/1"})
      void enforceAgain(HttpServletRequest request, HttpServletResponse response)
          throws IOException {
        if (enforcer.enforce(request, response)) {
          response.getWriter().write("ok");
        }
      }
    }
  }

  @LocalServerPort int port;

  @Autowired ConfigurableApplicationContext context;

  @Autowired ReloadableRules<RateLimitEnforcer> rules;

  @Autowired RateLimitEnforcer bean;

  private void reload(String... properties) {
    context.publishEvent(new EnvironmentChangeEvent(context, Set.of(properties)));
  }

  private List<Integer> statuses(String path, int times) throws Exception {
    List<Integer> statuses = new ArrayList<>();
    for (int i = 0; i < times; i++) {
      statuses.add(LoopbackHttp.get(port, path).statusCode());
    }
    return statuses;
  }

  @Test
  void enforcerBean_calledBesidesTheFilterAfterAReload_countsEachRequestOnce() throws Exception {
    RateLimitEnforcer atStart = rules.get();
    reload("slidingwindow.http.rules.once.paths");
    assertThat(rules.get()).as("the reload put new rules in service").isNotSameAs(atStart);
    assertThat(statuses("/d/own", 4))
        .as("a rule of 3 per minute, kept by the reload, grants 3 requests")
        .containsExactly(200, 200, 200, 429);
  }

  @Test
  void enforcerBean_afterAReloadThatChangesARule_appliesTheRulesInService() throws Exception {
    TestPropertyValues.of(
            "slidingwindow.http.rules.own.limits[0].permits=2",
            "slidingwindow.http.rules.own.limits[0].window=1m")
        .applyTo(context);
    reload("slidingwindow.http.rules.own.limits[0].permits");
    assertThat(bean.rules())
        .as("the bean's rules are those in service")
        .isEqualTo(rules.get().rules())
        .anySatisfy(rule -> assertThat(rule.toString()).contains("own", "2 per PT1M"));
    assertThat(statuses("/own/1", 3))
        .as("the reloaded limit of 2 per minute binds the filter and the bean alike")
        .containsExactly(200, 200, 429);
  }
}
