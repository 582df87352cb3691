package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.servlet.RateLimitEnforcer;
import io.slidingwindow.servlet.RateLimitFilter;
import jakarta.servlet.DispatcherType;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;

/**
 * The rules reloaded between two dispatches of one request: the starter's filter, registered for
 * async dispatches as well, lets a request through under the rules in service; its handler
 * publishes a configuration change under {@code slidingwindow.http} (as Spring Cloud does after a
 * refresh), which puts a new enforcer in service that keeps the rule's limiter, and answers in an
 * async dispatch, which the filter sees under the new rules. The request finishes with the rules it
 * started with, so the unchanged rule counts it once: a rule of 3 per minute lets 3 such requests
 * through. On a real Tomcat with a real HTTP client.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = ReloadBetweenDispatchesHttpTest.App.class,
    properties = {
      "spring.main.web-application-type=servlet",
      "server.address=127.0.0.1",
      "slidingwindow.http.rules.once.paths=/d/**",
      "slidingwindow.http.rules.once.key=global",
      "slidingwindow.http.rules.once.limits[0].permits=3",
      "slidingwindow.http.rules.once.limits[0].window=1m"
    })
class ReloadBetweenDispatchesHttpTest {

  @SpringBootApplication
  @Import(TomcatOnAFakeTicker.class)
  static class App {

    /** Registers the starter's filter for async dispatches too, as an application may. */
    @Bean
    static BeanPostProcessor slidingWindowFilterForAsyncDispatches() {
      return new BeanPostProcessor() {
        @Override
        public Object postProcessBeforeInitialization(Object bean, String name) {
          if (bean instanceof FilterRegistrationBean<?> registration
              && registration.getFilter() instanceof RateLimitFilter) {
            registration.setDispatcherTypes(DispatcherType.REQUEST, DispatcherType.ASYNC);
          }
          return bean;
        }
      };
    }

    @RestController
    static class Api {

      @Autowired ConfigurableApplicationContext context;

      /** Reloads the rules (the reload hook), then answers in an async dispatch. */
      @GetMapping("/d/async")
      DeferredResult<String> reloadThenAnswerAsync() {
        context.publishEvent(
            new EnvironmentChangeEvent(context, Set.of("slidingwindow.http.rules.once.paths")));
        DeferredResult<String> answer = new DeferredResult<>();
        answer.setResult("ok");
        return answer;
      }
    }
  }

  @LocalServerPort int port;

  @Autowired ReloadableRules<RateLimitEnforcer> rules;

  @Test
  void filter_rulesReloadedBetweenTheRequestAndItsAsyncDispatch_countsTheRequestOnce()
      throws Exception {
    RateLimitEnforcer atStart = rules.get();
    List<Integer> statuses = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      HttpResponse<String> response = LoopbackHttp.get(port, "/d/async");
      statuses.add(response.statusCode());
      if (response.statusCode() == 200) {
        assertThat(response.body()).isEqualTo("ok");
      }
    }
    assertThat(rules.get()).as("each request put new rules in service").isNotSameAs(atStart);
    assertThat(statuses)
        .as("a rule of 3 per minute, kept by every reload, grants 3 requests")
        .containsExactly(200, 200, 200, 429);
  }
}
