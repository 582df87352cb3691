package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.testkit.http.RawHttp;
import io.slidingwindow.webflux.ReactiveRateLimitFilter;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.embedded.netty.NettyReactiveWebServerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;

/**
 * The starter's rate limit filter run twice on one exchange, on Reactor Netty with a raw socket
 * client: an application's web filter after it calls it once more, on the path that {@code
 * X-Rewrite-To} names (if sent), then hands the exchange on with the path that {@code X-Then-To}
 * names (if sent). Each rule counts a request once, whatever its path at each look; a rule of 3 per
 * minute lets exactly 3 requests through. Each test is another client address.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = WebFluxEnforceOnceTest.App.class,
    properties = {
      "spring.main.web-application-type=reactive",
      "server.address=127.0.0.1",
      "slidingwindow.http.rate-limit-headers=true",
      "slidingwindow.http.rules.every.limits[0].permits=3",
      "slidingwindow.http.rules.every.limits[0].window=1m",
      "slidingwindow.http.rules.new.paths=/new/**",
      "slidingwindow.http.rules.new.limits[0].permits=3",
      "slidingwindow.http.rules.new.limits[0].window=1m",
      "slidingwindow.http.rules.last.paths=/last/**",
      "slidingwindow.http.rules.last.limits[0].permits=3",
      "slidingwindow.http.rules.last.limits[0].window=1m"
    })
class WebFluxEnforceOnceTest {

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

    /** The rate limit filter once more, as an application may call it itself (no order: last). */
    @Bean
    WebFilter rateLimitAgain(ReactiveRateLimitFilter rateLimit) {
      return (exchange, chain) ->
          rateLimit.filter(
              rewritten(exchange, "X-Rewrite-To"),
              second -> chain.filter(rewritten(second, "X-Then-To")));
    }

    private static ServerWebExchange rewritten(ServerWebExchange exchange, String header) {
      String path = exchange.getRequest().getHeaders().getFirst(header);
      return path == null
          ? exchange
          : exchange.mutate().request(request -> request.path(path)).build();
    }

    @RestController
    static class Api {
      @GetMapping({"/items/{id}", "/new/{id}", "/last/{id}"})
      String path(ServerHttpRequest request) {
        return request.getPath().value();
      }

      @GetMapping("/annotated")
      @RateLimit(name = "annotated", limits = "3/1m")
      String annotated() {
        return "annotated";
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

  /** How many of {@code times} requests were let through. */
  private int granted(int times, String client, String path, String... headers) {
    int granted = 0;
    for (int i = 0; i < times; i++) {
      int status = get(client, path, headers).status();
      assertThat(status).isIn(200, 429);
      granted += status == 200 ? 1 : 0;
    }
    return granted;
  }

  @Test
  void filterRunTwice_countsEachRequestOnce() {
    assertThat(granted(5, "127.0.0.31", "/items/1"))
        .as("a rule of 3 per minute grants 3 requests")
        .isEqualTo(3);
  }

  @Test
  void filterRunTwice_pathRewrittenBetween_countsTheNewPathsRuleOnceAndTheOldOneNotAgain() {
    RawHttp.Response first = get("127.0.0.32", "/old/1", "X-Rewrite-To", "/new/1");
    assertThat(first.body()).contains("/new/1");
    assertThat(1 + granted(4, "127.0.0.32", "/old/1", "X-Rewrite-To", "/new/1"))
        .as("rules of 3 per minute grant 3 requests")
        .isEqualTo(3);
    assertThat(first.header("RateLimit"))
        .as("each rule counted the first request once")
        .matches("\"every\";r=2;t=\\d+, \"new\";r=2;t=\\d+");
    assertThat(get("127.0.0.32", "/new/1").status())
        .as("the rule of the new path is spent too")
        .isEqualTo(429);
  }

  @Test
  void filterRunTwice_pathRewrittenBetweenAndAfter_countsEachRuleOnceAtTheHandler() {
    String[] rewrites = {"X-Rewrite-To", "/new/1", "X-Then-To", "/last/1"};
    RawHttp.Response first = get("127.0.0.33", "/old/1", rewrites);
    assertThat(first.body()).contains("/last/1");
    assertThat(1 + granted(4, "127.0.0.33", "/old/1", rewrites))
        .as("rules of 3 per minute grant 3 requests")
        .isEqualTo(3);
    assertThat(first.header("RateLimit"))
        .matches("\"every\";r=2;t=\\d+, \"new\";r=2;t=\\d+, \"last\";r=2;t=\\d+");
  }

  @Test
  void filterRunTwice_pathRewrittenBetweenToAnOddSpelling_isNotRefusedByTheFirewall() {
    // The client's path passed the firewall at the first look; the application's own rewrite is
    // not judged by it. No handler takes //new/1, so the dispatcher answers 404.
    assertThat(get("127.0.0.34", "/old/1", "X-Rewrite-To", "//new/1").status()).isEqualTo(404);
  }

  @Test
  void filterRunTwice_annotatedHandler_countsEachRequestOnceByEachRule() {
    RawHttp.Response first = get("127.0.0.35", "/annotated");
    assertThat(first.status()).isEqualTo(200);
    assertThat(1 + granted(4, "127.0.0.35", "/annotated"))
        .as("rules of 3 per minute grant 3 requests")
        .isEqualTo(3);
    assertThat(first.header("RateLimit")).matches("\"every\";r=2;t=\\d+, \"annotated\";r=2;t=\\d+");
  }
}
