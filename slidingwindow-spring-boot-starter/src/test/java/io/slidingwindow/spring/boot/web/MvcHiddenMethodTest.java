package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.http.RawHttp;
import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.embedded.tomcat.TomcatServletWebServerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * Spring Boot's own {@code HiddenHttpMethodFilter} (at -10000) after the rate limit filter, moved
 * before it with {@code filter-order: -20000}: {@code POST /items/1?_method=DELETE} reaches the
 * {@code @DeleteMapping}, and the rule for {@code DELETE} counts it where the handler is about to
 * run, although the filter saw a {@code POST}. On a real Tomcat with a raw socket client.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = MvcHiddenMethodTest.App.class,
    properties = {
      "spring.main.web-application-type=servlet",
      "server.address=127.0.0.1",
      "spring.mvc.hiddenmethod.filter.enabled=true",
      "slidingwindow.http.filter-order=-20000",
      "slidingwindow.http.rules.deletes.paths=/items/**",
      "slidingwindow.http.rules.deletes.methods=DELETE",
      "slidingwindow.http.rules.deletes.limits[0].permits=1",
      "slidingwindow.http.rules.deletes.limits[0].window=1h"
    })
class MvcHiddenMethodTest {

  @SpringBootApplication
  static class App {

    /** Tomcat, although other servers are on the test class path too. */
    @Bean
    TomcatServletWebServerFactory tomcat() {
      return new TomcatServletWebServerFactory();
    }

    @RestController
    static class Api {
      @DeleteMapping("/items/{id}")
      String delete(@PathVariable("id") String id) {
        return "deleted " + id;
      }
    }
  }

  @LocalServerPort int port;

  private RawHttp.Response post(String target) {
    return RawHttp.send(
        InetAddress.getLoopbackAddress(), port, "POST", target, List.of("Content-Length", "0"));
  }

  @Test
  void hiddenMethodAfterTheFilter_deleteByParameter_isCountedByTheDeleteRule() {
    RawHttp.Response first = post("/items/1?_method=DELETE");
    assertThat(first.status()).isEqualTo(200);
    assertThat(first.body()).as("served by the DELETE handler").isEqualTo("deleted 1");

    assertThat(post("/items/1?_method=DELETE").status())
        .as("the second DELETE by the hidden method parameter, over the rule's 1 an hour")
        .isEqualTo(429);
  }
}
