package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Limit;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.redis.RedisRateLimiter;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.embedded.netty.NettyReactiveWebServerFactory;
import org.springframework.boot.web.reactive.context.ReactiveWebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Two reactive applications on Reactor Netty whose rule keeps its windows in one real redis-server:
 * the filter decides through the Redis limiter's asynchronous API (BlockHound, active in this JVM,
 * would fail a request whose decision blocked an event-loop thread), and the two instances share
 * one quota.
 */
class WebFluxRedisIT {

  private static RedisServerProcess redis;

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(App.Api.class)
  static class App {
    @Bean
    NettyReactiveWebServerFactory nettyReactiveWebServerFactory() {
      return new NettyReactiveWebServerFactory();
    }

    @RestController
    static class Api {
      @GetMapping("/v1/quotes")
      String quotes() {
        return "quotes";
      }

      @GetMapping("/v1/items")
      String items() {
        return "items";
      }
    }
  }

  private final HttpClient client =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @BeforeAll
  static void startRedis() {
    redis = RedisServerProcess.start();
  }

  @AfterAll
  static void stopRedis() {
    redis.close();
  }

  private static ConfigurableApplicationContext start() {
    return new SpringApplicationBuilder(App.class)
        .web(WebApplicationType.REACTIVE)
        .properties(
            "server.address=127.0.0.1",
            "server.port=0",
            "spring.main.banner-mode=off",
            "slidingwindow.redis.uri=" + redis.uri(),
            // a loaded machine must not time out into the failure policy, which decides alone
            "slidingwindow.redis.command-timeout=2s",
            "slidingwindow.http.rate-limit-headers=true",
            "slidingwindow.http.rules.quotes.paths=/v1/quotes",
            "slidingwindow.http.rules.quotes.limits[0].permits=3",
            "slidingwindow.http.rules.quotes.limits[0].window=1m",
            "slidingwindow.http.rules.items.paths=/v1/items",
            "slidingwindow.http.rules.items.key=header:X-Item",
            "slidingwindow.http.rules.items.limits[0].permits=1",
            "slidingwindow.http.rules.items.limits[0].window=1m")
        .run();
  }

  private HttpResponse<String> get(ConfigurableApplicationContext context)
      throws IOException, InterruptedException {
    return client.send(
        HttpRequest.newBuilder(base(context).resolve("/v1/quotes")).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static URI base(ConfigurableApplicationContext context) {
    int port = ((ReactiveWebServerApplicationContext) context).getWebServer().getPort();
    return URI.create("http://127.0.0.1:" + port);
  }

  /**
   * One kept-alive connection alternating a request that Redis grants (a new key each time: its
   * answer comes on a Redis client thread, and the response is written from there) with one the
   * refusal cache refuses at once, on the event loop. Reactor Netty 1.3.6 and 1.3.7 stop reading
   * such a connection within a few hundred requests, and a request gets no answer at all
   * (reactor-netty issue 4361; the Boot 4 tests show it). Every request must be answered, with the
   * status its rule gives.
   */
  @Test
  void reactiveFilter_keptAliveConnection_answersEveryRequestAfterAsyncGrantsAndLocalRefusals()
      throws Exception {
    redis.cli("FLUSHALL");
    try (ConfigurableApplicationContext app = start()) {
      URI base = base(app);
      for (int i = 0; i < 3; i++) {
        assertThat(get(app).statusCode()).isEqualTo(200);
      }
      assertThat(get(app).statusCode()).as("the quota is spent").isEqualTo(429);
      HttpClient oneConnection =
          HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
      for (int i = 0; i < 300; i++) {
        HttpResponse<String> granted =
            oneConnection.send(
                HttpRequest.newBuilder(base.resolve("/v1/items"))
                    .header("X-Item", "item-" + i)
                    .timeout(Duration.ofSeconds(5))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> refused =
            oneConnection.send(
                HttpRequest.newBuilder(base.resolve("/v1/quotes"))
                    .timeout(Duration.ofSeconds(5))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(granted.statusCode()).as("item %d", i).isEqualTo(200);
        assertThat(refused.statusCode()).as("refusal %d", i).isEqualTo(429);
      }
    }
  }

  @Test
  void reactiveFilter_redisLimiter_sharesOneQuotaAcrossInstancesAndAnswers429() throws Exception {
    redis.cli("FLUSHALL");
    try (ConfigurableApplicationContext first = start();
        ConfigurableApplicationContext second = start()) {
      assertThat(
              first
                  .getBean(RateLimiterFactory.class)
                  .create("probe", List.of(Limit.of(1, Duration.ofSeconds(1))), false))
          .isInstanceOf(RedisRateLimiter.class);
      assertThat(Long.parseLong(redis.cli("DBSIZE"))).isZero();

      HttpResponse<String> a = get(first);
      HttpResponse<String> b = get(second);
      HttpResponse<String> c = get(first);
      assertThat(a.statusCode()).isEqualTo(200);
      assertThat(a.body()).isEqualTo("quotes");
      assertThat(a.headers().firstValue("RateLimit").orElseThrow()).startsWith("\"quotes\";r=2;t=");
      assertThat(b.statusCode()).isEqualTo(200);
      assertThat(b.headers().firstValue("RateLimit").orElseThrow()).startsWith("\"quotes\";r=1;t=");
      assertThat(c.statusCode()).isEqualTo(200);
      assertThat(Long.parseLong(redis.cli("DBSIZE"))).as("the windows live in Redis").isOne();

      HttpResponse<String> refused = get(second);
      assertThat(refused.statusCode()).isEqualTo(429);
      assertThat(refused.headers().firstValue("Content-Type").orElseThrow())
          .startsWith("application/problem+json");
      assertThat(Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow()))
          .isBetween(1L, 61L);
      assertThat(refused.body()).contains("\"status\":429");
      assertThat(get(first).statusCode()).isEqualTo(429);
    }
  }
}
