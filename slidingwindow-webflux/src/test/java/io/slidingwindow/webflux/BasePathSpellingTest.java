package io.slidingwindow.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Limit;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.PathFirewall;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.testkit.http.RawHttp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.http.server.reactive.ContextPathCompositeHandler;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * An application under a base path ({@code spring.webflux.base-path=/api}, which Spring Boot serves
 * through a {@link ContextPathCompositeHandler}, as here), a route {@code GET /items/{id}} and a
 * rule over {@code /items/**} of 2 a minute: a spelling of the path that the route serves is
 * counted by the rule, with the path firewall strict (an ambiguous spelling is refused 400) and off
 * (every reading of the path is matched). Real Reactor Netty server, raw HTTP requests sent as
 * written.
 */
class BasePathSpellingTest {

  private static final List<String> SPELLINGS =
      List.of(
          "/api/items/1",
          "/api/items/1/",
          "/api/items/%31",
          "/api/%69tems/1",
          "/api/items;a=b/1",
          "/api;a=b/items/1",
          "/api//items/1",
          "/api/./items/1",
          "/api/x/../items/1",
          "/api/items/x%2F..%2F1",
          "/api/items%2F1",
          "/api/%2E/items/1",
          "/api/Items/1",
          "/api/items/1?x=/y",
          "/api/items/1#f");

  /** For each spelling, the statuses of three GETs from one client, on a server of its own. */
  @ParameterizedTest(name = "firewall off: {0}")
  @ValueSource(booleans = {false, true})
  void eachSpellingTheRouteServes_isCountedByTheRule(boolean firewallOff) {
    List<String> served = new ArrayList<>();
    for (String spelling : SPELLINGS) {
      List<Integer> statuses = threeGets(firewallOff, spelling);
      served.add(spelling + " " + statuses);
      assertThat(statuses.stream().filter(status -> status == 200).count())
          .as("200s of %s (firewall %s): %s", spelling, firewallOff ? "off" : "strict", served)
          .isLessThanOrEqualTo(2);
    }
    assertThat(served).as("the plain spelling is served").contains("/api/items/1 [200, 200, 429]");
  }

  private static List<Integer> threeGets(boolean firewallOff, String spelling) {
    ReactiveRateLimitFilter filter =
        ReactiveRateLimitFilter.builder()
            .rule(
                HttpRule.builder("items")
                    .path("/items/**")
                    .limit(Limit.exact(2, Duration.ofMinutes(1)))
                    .build())
            .limiterFactory(RateLimiterFactory.inMemory(new FakeTicker(), 100))
            .pathFirewall(firewallOff ? PathFirewall.off() : PathFirewall.strict())
            .build();
    var application =
        WebHttpHandlerBuilder.webHandler(
                RouterFunctions.toWebHandler(
                    RouterFunctions.route(
                        RequestPredicates.GET("/items/{id}"),
                        request -> ServerResponse.ok().bodyValue("item"))))
            .filter(filter)
            .build();
    DisposableServer server =
        HttpServer.create()
            .host("127.0.0.1")
            .port(0)
            .handle(
                new ReactorHttpHandlerAdapter(
                    new ContextPathCompositeHandler(Map.of("/api", application))))
            .bindNow();
    try {
      List<Integer> statuses = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        statuses.add(RawHttp.get(server.port(), spelling).status());
      }
      return statuses;
    } finally {
      server.disposeNow();
    }
  }
}
