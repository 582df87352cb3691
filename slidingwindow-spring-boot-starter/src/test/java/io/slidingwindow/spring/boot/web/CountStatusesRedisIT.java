package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
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
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Failed logins counted on a real redis-server through the starter, in a reactive application on
 * Reactor Netty: reservations and refunds go through the Redis limiter's asynchronous API
 * (BlockHound, active in this JVM, would fail a request that blocked an event-loop thread).
 */
class CountStatusesRedisIT {

  private static RedisServerProcess redis;

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(App.Logins.class)
  static class App {
    @Bean
    NettyReactiveWebServerFactory nettyReactiveWebServerFactory() {
      return new NettyReactiveWebServerFactory();
    }

    @RestController
    static class Logins {
      @GetMapping("/login")
      ResponseEntity<String> login(@RequestParam String password) {
        return password.equals("good")
            ? ResponseEntity.ok("welcome")
            : ResponseEntity.status(HttpStatus.UNAUTHORIZED).body("bad password");
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
            // a slow machine must not time out into the failure policy, which would decide alone
            "slidingwindow.redis.command-timeout=5s",
            "slidingwindow.redis.on-failure=refuse",
            "slidingwindow.http.rules.logins.paths=/login",
            "slidingwindow.http.rules.logins.key=global",
            "slidingwindow.http.rules.logins.count-statuses=400-599",
            "slidingwindow.http.rules.logins.limits[0].permits=3",
            "slidingwindow.http.rules.logins.limits[0].window=1m")
        .run();
  }

  private CompletableFuture<HttpResponse<String>> login(
      ConfigurableApplicationContext app, String password) {
    int port = ((ReactiveWebServerApplicationContext) app).getWebServer().getPort();
    return client.sendAsync(
        HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/login?password=" + password))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private int status(ConfigurableApplicationContext app, String password) {
    return login(app, password).join().statusCode();
  }

  @Test
  void countStatuses_onRedis_goodLoginsNeverCount_theFourthFailureIsRefused() throws Exception {
    redis.cli("FLUSHALL");
    try (ConfigurableApplicationContext app = start()) {
      for (int i = 0; i < 10; i++) {
        assertThat(status(app, "good")).isEqualTo(200);
      }
      for (int i = 0; i < 3; i++) {
        assertThat(status(app, "bad")).isEqualTo(401);
        if (i < 2) {
          assertThat(status(app, "good")).isEqualTo(200);
        }
      }

      assertThat(status(app, "bad")).isEqualTo(429);
      assertThat(status(app, "good")).isEqualTo(429);
    }
  }

  @Test
  void countStatuses_onRedis_concurrentFailures_letThroughAtMostTheLimit() throws Exception {
    redis.cli("FLUSHALL");
    try (ConfigurableApplicationContext app = start()) {
      assertThat(status(app, "good")).isEqualTo(200); // connected, script loaded
      List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        answers.add(login(app, "bad"));
      }
      Map<Integer, Integer> statuses = new TreeMap<>();
      for (CompletableFuture<HttpResponse<String>> answer : answers) {
        statuses.merge(answer.join().statusCode(), 1, Integer::sum);
      }

      assertThat(statuses).isEqualTo(Map.of(401, 3, 429, 17));
    }
  }
}
