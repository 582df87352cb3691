package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.http.EnforcementCore;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.webflux.ReactiveRateLimitFilter;
import io.slidingwindow.webflux.internal.ReactiveKeySource;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.embedded.netty.NettyReactiveWebServerFactory;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.WebFilter;

/**
 * The rules reloaded between two passes of the starter's filter over one exchange: the filter lets
 * a request through under the rules in service; a web filter of the application's after it
 * publishes a configuration change under {@code slidingwindow.http} (as Spring Cloud does after a
 * refresh), which puts new rules in service that keep the rule's limiter, and calls the starter's
 * filter once more. The exchange finishes with the rules it started with, so the unchanged rule
 * counts it once: a rule of 3 per minute lets 3 such requests through. On Reactor Netty with a real
 * HTTP client.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = WebFluxReloadBetweenPassesHttpTest.App.class,
    properties = {
      "spring.main.web-application-type=reactive",
      "server.address=127.0.0.1",
      "slidingwindow.http.rules.once.paths=/d/**",
      "slidingwindow.http.rules.once.key=global",
      "slidingwindow.http.rules.once.limits[0].permits=3",
      "slidingwindow.http.rules.once.limits[0].window=1m"
    })
class WebFluxReloadBetweenPassesHttpTest {

  @SpringBootApplication
  static class App {

    /** Reactor Netty, although Tomcat and Jetty are on the test class path too. */
    @Bean
    NettyReactiveWebServerFactory nettyReactiveWebServerFactory() {
      return new NettyReactiveWebServerFactory();
    }

    @Bean
    FakeTicker ticker() {
      return new FakeTicker(3_000_000_000L);
    }

    /**
     * Reloads the rules (the reload hook), then runs the rate limit filter again (no order: last).
     */
    @Bean
    WebFilter reloadThenRateLimitAgain(
        ConfigurableApplicationContext context, ReactiveRateLimitFilter rateLimit) {
      return (exchange, chain) -> {
        context.publishEvent(
            new EnvironmentChangeEvent(context, Set.of("slidingwindow.http.rules.once.paths")));
        return rateLimit.filter(exchange, chain);
      };
    }

    @RestController
    static class Api {
      @GetMapping("/d/reload")
      String answer() {
        return "ok";
      }
    }
  }

  @LocalServerPort int port;

  @Autowired ReloadableRules<EnforcementCore<ReactiveKeySource>> rules;

  @Test
  void filterRunTwice_rulesReloadedBetweenThePasses_countsTheExchangeOnce() throws Exception {
    EnforcementCore<ReactiveKeySource> atStart = rules.get();
    List<Integer> statuses = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      HttpResponse<String> response = LoopbackHttp.get(port, "/d/reload");
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
