package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.Limit;
import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.http.RequestKey;
import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.webflux.ReactiveRateLimitFilter;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.embedded.netty.NettyReactiveWebServerFactory;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A reactive application that builds its own {@link ReactiveRateLimitFilter} with the public
 * builder, on Reactor Netty (a random loopback port) with a real HTTP client: the starter's filter
 * backs off, and the application's rules count by their key resolver or by the client address. Such
 * a filter enforces its own rules only, as docs/http.md says: not those of {@code
 * slidingwindow.http.rules}, nor {@code @RateLimit} methods.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = WebFluxOwnFilterTest.App.class,
    properties = {
      "spring.main.web-application-type=reactive",
      "server.address=127.0.0.1",
      "slidingwindow.http.rules.ignored.limits[0].permits=1",
      "slidingwindow.http.rules.ignored.limits[0].window=1m",
    })
class WebFluxOwnFilterTest {

  private static final long SECOND = 1_000_000_000L;

  @SpringBootApplication
  static class App {

    /** Reactor Netty, although Tomcat and Jetty are on the test class path too. */
    @Bean
    NettyReactiveWebServerFactory nettyReactiveWebServerFactory() {
      return new NettyReactiveWebServerFactory();
    }

    @Bean
    FakeTicker ticker() {
      return new FakeTicker(-7 * SECOND);
    }

    @Bean
    ReactiveRateLimitFilter ownFilter(FakeTicker ticker) {
      return ReactiveRateLimitFilter.builder()
          .rule(
              HttpRule.builder("tenant")
                  .path("/v1/tenant")
                  .limit(Limit.of(2, Duration.ofMinutes(1)))
                  .build(),
              (exchange, principal) -> {
                String tenant = exchange.getRequest().getHeaders().getFirst("X-Tenant");
                return tenant == null ? null : RequestKey.custom(tenant);
              })
          .rule(
              HttpRule.builder("open")
                  .path("/v1/open")
                  .limit(Limit.of(1, Duration.ofMinutes(1)))
                  .build())
          .clientAddresses(ClientAddresses.direct())
          .limiterFactory(RateLimiterFactory.inMemory(ticker, 1_000))
          .rateLimitHeaders(true)
          .order(-5)
          .build();
    }

    @RestController
    static class Api {
      @GetMapping({"/v1/tenant", "/v1/open"})
      String ok() {
        return "ok";
      }

      @GetMapping("/v1/annotated")
      @RateLimit(limits = "1/1m")
      String annotated() {
        return "annotated";
      }
    }
  }

  @LocalServerPort int port;
  @Autowired FakeTicker ticker;
  @Autowired ApplicationContext context;

  private HttpResponse<String> get(String path, String... headers)
      throws IOException, InterruptedException {
    return LoopbackHttp.get(port, path, headers);
  }

  @Test
  void context_ownFilter_isTheOnlyFilterWithItsRulesAndOrder() {
    assertThat(context.getBeansOfType(ReactiveRateLimitFilter.class)).hasSize(1);
    ReactiveRateLimitFilter filter = context.getBean(ReactiveRateLimitFilter.class);
    assertThat(filter.rules()).extracting(HttpRule::name).containsExactly("tenant", "open");
    assertThat(filter.getOrder()).isEqualTo(-5);
  }

  @Test
  void builtRule_keyResolver_countsEachKeyApartAndNullUnderClientAddress() throws Exception {
    assertThat(get("/v1/tenant", "X-Tenant", "a").statusCode()).isEqualTo(200);
    HttpResponse<String> second = get("/v1/tenant", "X-Tenant", "a");
    assertThat(second.statusCode()).isEqualTo(200);
    assertThat(second.headers().firstValue("RateLimit-Policy")).hasValue("\"tenant\";q=2;w=60");

    HttpResponse<String> refused = get("/v1/tenant", "X-Tenant", "a");
    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(refused.headers().firstValue("Retry-After")).isPresent();
    assertThat(refused.headers().firstValue("Content-Type").orElseThrow())
        .startsWith("application/problem+json");

    assertThat(get("/v1/tenant", "X-Tenant", "b").statusCode()).isEqualTo(200);
    // No header: the resolver answers null, so the request counts under the client's address.
    assertThat(get("/v1/tenant").statusCode()).isEqualTo(200);
    assertThat(get("/v1/tenant").statusCode()).isEqualTo(200);
    assertThat(get("/v1/tenant").statusCode()).isEqualTo(429);
  }

  @Test
  void builtRule_withoutResolver_keysByClientAddressUntilTheWindowPasses() throws Exception {
    assertThat(get("/v1/open").statusCode()).isEqualTo(200);
    assertThat(get("/v1/open", "X-Tenant", "other").statusCode()).isEqualTo(429);

    ticker.advance(61 * SECOND);

    assertThat(get("/v1/open").statusCode()).isEqualTo(200);
  }

  @Test
  void ownFilter_propertyRulesAndRateLimitMethods_areNotEnforced() throws Exception {
    // Rule "ignored" of the properties (1 per minute on every path) and the method's 1 per minute
    // would refuse the second request.
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> response = get("/v1/annotated");
      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.body()).isEqualTo("annotated");
    }
  }

  @Test
  void builder_nullArgument_throwsNamingIt() {
    ReactiveRateLimitFilter.Builder builder = ReactiveRateLimitFilter.builder();
    HttpRule rule = HttpRule.builder("r").limit(Limit.of(1, Duration.ofSeconds(1))).build();

    assertThatThrownBy(() -> builder.rule(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("rule");
    assertThatThrownBy(() -> builder.rule(rule, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("keys");
    assertThatThrownBy(() -> builder.clientAddresses(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("addresses");
    assertThatThrownBy(() -> builder.limiterFactory(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("limiterFactory");
  }

  @Test
  void build_twoRulesOfOneName_throwsNamingIt() {
    HttpRule rule = HttpRule.builder("twice").limit(Limit.of(1, Duration.ofSeconds(1))).build();
    ReactiveRateLimitFilter.Builder builder =
        ReactiveRateLimitFilter.builder().rule(rule).rule(rule);

    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("twice");
  }
}
