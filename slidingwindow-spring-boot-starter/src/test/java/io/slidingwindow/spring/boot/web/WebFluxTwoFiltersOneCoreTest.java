package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Decision;
import io.slidingwindow.Limit;
import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.EnforcementCore;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimitListener;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.testkit.http.RawHttp;
import io.slidingwindow.webflux.ReactiveRateLimitFilter;
import io.slidingwindow.webflux.internal.ReactiveFilters;
import io.slidingwindow.webflux.internal.ReactiveKeySource;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.Principal;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
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
 * Two rate limit filters over one set of rules (one {@link EnforcementCore}), each followed by a
 * path rewrite, on Reactor Netty with a raw socket client: the outer filter, the rewrite that
 * {@code X-Via} asks for, the inner filter, the rewrite that {@code X-Back} asks for, then the
 * handler. Whichever filter saw which path, each rule counts a request once (rules of 3 a minute
 * let exactly 3 through), neither twice nor, with the path rewritten away, not at all; and where
 * the handler is about to run, the rules are looked at again only if no look over them saw the
 * request as it is now. Looks are counted by the exchange's principal, which each look resolves.
 * Each test is another client address.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = WebFluxTwoFiltersOneCoreTest.App.class,
    properties = {"spring.main.web-application-type=reactive", "server.address=127.0.0.1"})
class WebFluxTwoFiltersOneCoreTest {

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
    AtomicInteger allowed() {
      return new AtomicInteger();
    }

    @Bean
    AtomicInteger looks() {
      return new AtomicInteger();
    }

    @Bean
    EnforcementCore<ReactiveKeySource> core(FakeTicker ticker, AtomicInteger allowed) {
      EnforcementCore.Builder<ReactiveKeySource> core = EnforcementCore.builder();
      for (HttpRule rule :
          List.of(
              HttpRule.builder("every").limit(Limit.exact(3, Duration.ofMinutes(1))).build(),
              HttpRule.builder("b")
                  .path("/b/**")
                  .limit(Limit.exact(3, Duration.ofMinutes(1)))
                  .build())) {
        core.rule(rule, ReactiveKeySource::clientIp);
      }
      return core.clientKey(ReactiveKeySource::clientIp)
          .limiterFactory(RateLimiterFactory.inMemory(ticker, 1_000))
          .listener(
              new RateLimitListener() {
                @Override
                public void onAllowed(HttpRule rule, Decision decision) {
                  allowed.incrementAndGet();
                }
              })
          .rateLimitHeaders(true)
          .build();
    }

    @Bean
    WebFilter countLooks(AtomicInteger looks) {
      return new CountLooks(looks);
    }

    @Bean
    ReactiveRateLimitFilter outerFilter(EnforcementCore<ReactiveKeySource> core) {
      return ReactiveFilters.filter(() -> core, ClientAddresses.direct(), null, -20);
    }

    @Bean
    WebFilter via() {
      return new Rewrite("X-Via", -15);
    }

    @Bean
    ReactiveRateLimitFilter innerFilter(EnforcementCore<ReactiveKeySource> core) {
      return ReactiveFilters.filter(() -> core, ClientAddresses.direct(), null, -10);
    }

    @Bean
    WebFilter back() {
      return new Rewrite("X-Back", -5);
    }

    /**
     * Counts each look at an exchange, ahead of the rate limit filters: every look resolves the
     * exchange's principal, which is none.
     */
    record CountLooks(AtomicInteger looks) implements WebFilter, Ordered {
      @Override
      public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        Mono<Principal> counted =
            Mono.fromCallable(
                () -> {
                  looks.incrementAndGet();
                  return null;
                });
        return chain.filter(exchange.mutate().principal(counted).build());
      }

      @Override
      public int getOrder() {
        return -30;
      }
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
  @Autowired AtomicInteger allowed;
  @Autowired AtomicInteger looks;

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

  /**
   * Sends {@code path} with {@code headers} from {@code client}: served on {@code /b/1}, counted by
   * each rule once, looked at {@code expectedLooks} times in all; then 4 more, of which 2 are let
   * through.
   */
  private void countsOnce(String client, int expectedLooks, String path, String... headers) {
    int allowedBefore = allowed.get();
    int looksBefore = looks.get();
    RawHttp.Response first = get(client, path, headers);
    assertThat(first.status()).isEqualTo(200);
    assertThat(first.body()).contains("served /b/1");
    assertThat(allowed.get() - allowedBefore)
        .as("decisions for one request by two rules")
        .isEqualTo(2);
    assertThat(first.header("RateLimit")).contains("\"every\";r=2;").contains("\"b\";r=2;");
    assertThat(looks.get() - looksBefore).as("looks at one request").isEqualTo(expectedLooks);
    assertThat(1 + granted(4, client, path, headers))
        .as("rules of 3 a minute grant 3 requests")
        .isEqualTo(3);
  }

  @Test
  void bothFiltersSawAnotherPath_theRulesCountAtTheHandlerOnce() {
    // Both filters saw /x; the handler gets /b/1: one look at the handler is enough.
    countsOnce("127.0.0.51", 3, "/x", "X-Back", "/b/1");
  }

  @Test
  void outerSawTheHandlersPath_innerAnother_theRulesCountOnceInTheOuterFilter() {
    // The outer filter saw /b/1, as the handler gets it: nothing to look at there.
    countsOnce("127.0.0.52", 2, "/b/1", "X-Via", "/x", "X-Back", "/b/1");
  }

  @Test
  void innerSawTheHandlersPath_theRulesCountOnceInTheInnerFilter() {
    countsOnce("127.0.0.53", 2, "/x", "X-Via", "/b/1");
  }

  @Test
  void pathRewrittenAwayAfterTheOuterFilter_theRuleOfTheOldPathCountedOnce() {
    // The outer filter saw /b/1; the inner one and the handler get /x.
    assertThat(get("127.0.0.54", "/b/1", "X-Via", "/x").body()).contains("served /x");
    assertThat(1 + granted(4, "127.0.0.54", "/b/1", "X-Via", "/x")).isEqualTo(3);
    assertThat(get("127.0.0.54", "/b/2").status())
        .as("the rule of /b/** is spent: each request counted by it once, none not at all")
        .isEqualTo(429);
  }
}
