package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.spring.RateLimitExceededException;
import io.slidingwindow.testkit.FakeTicker;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A controller with a limited request handler and a limited method that no mapping serves (a
 * GraphQL query, say), in a real embedded Tomcat: the method is limited by the bean-method
 * interceptor, and the handler by the web layer alone, counted once per request although the
 * controller is now proxied.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = ControllerMethodsHttpTest.App.class,
    properties = "server.address=127.0.0.1")
class ControllerMethodsHttpTest {

  @SpringBootApplication
  static class App {
    @Bean
    FakeTicker ticker() {
      return new FakeTicker();
    }

    @RestController
    static class Catalog {
      @GetMapping("/catalog")
      @RateLimit(limits = "2/1h", key = "global")
      public String list() {
        return "items";
      }

      @RateLimit(limits = "1/1h")
      public String export() {
        return "export";
      }
    }
  }

  @LocalServerPort int port;
  @Autowired App.Catalog catalog;

  @Test
  void handler_throughTheProxiedController_countedOncePerRequest() throws Exception {
    assertThat(AopUtils.isAopProxy(catalog)).as("proxied for export()").isTrue();

    assertThat(LoopbackHttp.get(port, "/catalog").statusCode()).isEqualTo(200);
    assertThat(LoopbackHttp.get(port, "/catalog").statusCode()).isEqualTo(200);
    assertThat(LoopbackHttp.get(port, "/catalog").statusCode()).isEqualTo(429);
  }

  @Test
  void methodWithoutMapping_calledThroughTheBean_secondCallRefused() {
    assertThat(catalog.export()).isEqualTo("export");

    assertThatThrownBy(catalog::export)
        .isInstanceOfSatisfying(
            RateLimitExceededException.class,
            refusal -> assertThat(refusal.rule()).isEqualTo("Catalog.export"));
  }
}
