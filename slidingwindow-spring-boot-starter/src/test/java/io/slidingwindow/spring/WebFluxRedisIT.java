package io.slidingwindow.spring;

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
            "slidingwindow.http.rate-limit-headers=true",
            "slidingwindow.http.rules.quotes.paths=/v1/quotes",
            "slidingwindow.http.rules.quotes.limits[0].permits=3",
            "slidingwindow.http.rules.quotes.limits[0].window=1m")
        .run();
  }

  private HttpResponse<String> get(ConfigurableApplicationContext context)
      throws IOException, InterruptedException {
    int port = ((ReactiveWebServerApplicationContext) context).getWebServer().getPort();
    return client.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/quotes")).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void reactiveFilter_redisLimiter_sharesOneQuotaAcrossInstancesAndAnswers429() throws Exception {
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
