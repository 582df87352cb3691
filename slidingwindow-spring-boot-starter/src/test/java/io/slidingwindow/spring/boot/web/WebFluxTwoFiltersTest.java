package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Limit;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.testkit.http.RawHttp;
import io.slidingwindow.webflux.ReactiveRateLimitFilter;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.embedded.netty.NettyReactiveWebServerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * Two rate limit filters of the application's, and a path rewrite after each, on Reactor Netty with
 * a raw socket client: the outer filter, the rewrite that {@code X-Via} asks for, the inner filter,
 * the rewrite that {@code X-Back} asks for, then the handler. Where the handler runs, each filter
 * whose request changed since it looked counts it by its rules that apply now, whether the other
 * filter has anything to count or not. Each rule allows one request a minute; each test is another
 * client address.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = WebFluxTwoFiltersTest.App.class,
    properties = {"spring.main.web-application-type=reactive", "server.address=127.0.0.1"})
class WebFluxTwoFiltersTest {

  @SpringBootApplication
  static class App {

    /** Reactor Netty, although Tomcat and Jetty are on the test class path too. */
    @Bean
    NettyReactiveWebServerFactory nettyReactiveWebServerFactory() {
      return new NettyReactiveWebServerFactory();
    }

    @Bean
    FakeTicker ticker() {
      return new FakeTicker();
    }

    @Bean
    ReactiveRateLimitFilter outerFilter(FakeTicker ticker) {
      return filter("outer", -20, ticker);
    }

    @Bean
    WebFilter via() {
      return new Rewrite("X-Via", -15);
    }

    @Bean
    ReactiveRateLimitFilter innerFilter(FakeTicker ticker) {
      return filter("inner", -10, ticker);
    }

    @Bean
    WebFilter back() {
      return new Rewrite("X-Back", -5);
    }

    private static ReactiveRateLimitFilter filter(String name, int order, FakeTicker ticker) {
      return ReactiveRateLimitFilter.builder()
          .rule(
              HttpRule.builder(name)
                  .path("/b/**")
                  .limit(Limit.exact(1, Duration.ofMinutes(1)))
                  .build())
          .limiterFactory(RateLimiterFactory.inMemory(ticker, 1_000))
          .rateLimitHeaders(true)
          .order(order)
          .build();
    }

    /** Serves the request on the path its header names, if sent. */
    record Rewrite(String header, int order) implements WebFilter, Ordered {
      @Override
      public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        String path = exchange.getRequest().getHeaders().getFirst(header);
        return chain.filter(
            path == null
                ? exchange
                : exchange.mutate().request(request -> request.path(path)).build());
      }

      @Override
      public int getOrder() {
        return order;
      }
    }

    @RestController
    static class Api {
      @GetMapping({"/b/{id}", "/x"})
      String path(ServerHttpRequest request) {
        return "served " + request.getPath().value();
      }
    }
  }

  @LocalServerPort int port;

  private RawHttp.Response get(String client, String path, String... headers) {
    try {
      return RawHttp.send(InetAddress.getByName(client), port, "GET", path, List.of(headers));
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void outerUnchanged_innerChanged_innerCountsAtTheHandler() {
    // The outer filter sees /b/1 and the handler gets /b/1; the inner one saw /x.
    String[] away = {"X-Via", "/x", "X-Back", "/b/1"};
    RawHttp.Response first = get("127.0.0.41", "/b/1", away);
    assertThat(first.status()).isEqualTo(200);
    assertThat(first.body()).contains("served /b/1");
    assertThat(first.header("RateLimit")).matches("\"outer\";r=0;t=\\d+, \"inner\";r=0;t=\\d+");

    assertThat(get("127.0.0.41", "/x", "X-Via", "/b/1").status())
        .as("the inner rule, spent at the handler, refuses the next request it sees at /b/1")
        .isEqualTo(429);
  }

  @Test
  void outerChanged_innerUnchanged_outerCountsAndTheHandlerRuns() {
    // The outer filter saw /x; the inner one and the handler get /b/1.
    RawHttp.Response first = get("127.0.0.42", "/x", "X-Via", "/b/1");
    assertThat(first.status()).isEqualTo(200);
    assertThat(first.body()).contains("served /b/1");
    assertThat(first.header("RateLimit")).matches("\"inner\";r=0;t=\\d+, \"outer\";r=0;t=\\d+");

    assertThat(get("127.0.0.42", "/x", "X-Back", "/b/1").status())
        .as("the outer rule, spent at the handler, refuses the next request there")
        .isEqualTo(429);
  }
}
