package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.testkit.http.RawHttp;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.embedded.netty.NettyReactiveWebServerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpMethod;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.filter.reactive.UrlHandlerFilter;
import org.springframework.web.server.WebFilter;

/**
 * {@code @RateLimit} on a WebFlux handler counts every request the dispatcher hands to that
 * handler, also when a web filter that runs after the rate limit filter rewrites the request's path
 * or method: Spring's own {@link UrlHandlerFilter} taking the trailing slash off, and an
 * application's method override. Both are web filter beans without an order, so they run after the
 * starter's filter (order 0), which cannot see where the request will go. On Reactor Netty with a
 * raw socket client, so the path is sent as written.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = WebFluxRewrittenRequestTest.App.class,
    properties = {"spring.main.web-application-type=reactive", "server.address=127.0.0.1"})
class WebFluxRewrittenRequestTest {

  static final AtomicInteger ITEMS_SERVED = new AtomicInteger();
  static final AtomicInteger DELETES_SERVED = new AtomicInteger();

  @SpringBootApplication
  static class App {

    /** Reactor Netty, although Tomcat and Jetty are on the test class path too. */
    @Bean
    NettyReactiveWebServerFactory nettyReactiveWebServerFactory() {
      return new NettyReactiveWebServerFactory();
    }

    /** Spring's filter that serves {@code /items/1/} as {@code /items/1}. */
    @Bean
    WebFilter trailingSlash() {
      return UrlHandlerFilter.trailingSlashHandler("/**").mutateRequest().build();
    }

    /** A method override, as applications write one: the header's method, if any. */
    @Bean
    WebFilter methodOverride() {
      return (exchange, chain) -> {
        String method = exchange.getRequest().getHeaders().getFirst("X-HTTP-Method-Override");
        return method == null
            ? chain.filter(exchange)
            : chain.filter(
                exchange
                    .mutate()
                    .request(request -> request.method(HttpMethod.valueOf(method)))
                    .build());
      };
    }

    @RestController
    static class Api {
      @GetMapping("/items/{id}")
      @RateLimit(limits = "2/1h")
      String item(@PathVariable("id") String id) {
        ITEMS_SERVED.incrementAndGet();
        return "item " + id;
      }

      @DeleteMapping("/things/{id}")
      @RateLimit(limits = "1/1h")
      String delete(@PathVariable("id") String id) {
        DELETES_SERVED.incrementAndGet();
        return "deleted " + id;
      }
    }
  }

  @LocalServerPort int port;

  private RawHttp.Response send(String method, String target, String... headers) {
    return RawHttp.send(InetAddress.getLoopbackAddress(), port, method, target, List.of(headers));
  }

  @Test
  void trailingSlashTakenOffByALaterWebFilter_isCountedByTheHandlersLimit() {
    int served = ITEMS_SERVED.get();

    assertThat(send("GET", "/items/1").status()).isEqualTo(200);
    assertThat(send("GET", "/items/1/").status())
        .as("served by the limited handler, so it spends the second permit")
        .isEqualTo(200);
    assertThat(send("GET", "/items/1/").status()).isEqualTo(429);
    assertThat(send("GET", "/items/1").status()).isEqualTo(429);
    assertThat(ITEMS_SERVED.get() - served).isEqualTo(2);
  }

  @Test
  void methodOverriddenByALaterWebFilter_isCountedByTheHandlersLimit() {
    int served = DELETES_SERVED.get();

    assertThat(send("DELETE", "/things/1").status()).isEqualTo(200);
    RawHttp.Response overridden = send("POST", "/things/1", "X-HTTP-Method-Override", "DELETE");

    assertThat(overridden.status()).as("a second DELETE of a 1/1h handler").isEqualTo(429);
    assertThat(overridden.isProblemJson()).isTrue();
    assertThat(DELETES_SERVED.get() - served).isEqualTo(1);
  }
}
