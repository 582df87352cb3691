package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.testkit.http.KeptAliveConnection;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.embedded.netty.NettyReactiveWebServerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The WebFlux filter on Reactor Netty keeps a kept-alive connection served after refusing a request
 * that waited behind another on it. Reactor Netty before 1.3.8 queues a request that arrives before
 * the previous exchange has ended; when the queued request is answered on the thread that
 * dispatches it, nothing asks to read the connection again, and the next request waits unread. The
 * in-memory limiter refuses at once, so the filter must not write its refusal on that thread.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = WebFluxKeepAliveTest.App.class,
    properties = {
      "spring.main.web-application-type=reactive",
      "server.address=127.0.0.1",
      "slidingwindow.http.rules.later.paths=/v1/later/**",
      "slidingwindow.http.rules.later.key=global",
      "slidingwindow.http.rules.later.limits[0].permits=1",
      "slidingwindow.http.rules.later.limits[0].window=1h",
    })
class WebFluxKeepAliveTest {

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

    @RestController
    static class Api {
      /** Answers from another thread, so that its exchange ends after the next request is read. */
      @GetMapping("/v1/later/{id}")
      Mono<String> later() {
        return Mono.fromCallable(() -> "ok").subscribeOn(Schedulers.boundedElastic());
      }
    }
  }

  @LocalServerPort int port;

  @Test
  void keptAliveConnection_refusalOfAQueuedRequest_nextRequestIsAnswered() {
    try (KeptAliveConnection connection = KeptAliveConnection.open(port, Duration.ofSeconds(10))) {
      // Rule "later": 1 per hour. The first (granted, answered later) and the second (refused at
      // once) in one write, so that the second is queued behind the first.
      connection.send(
          KeptAliveConnection.get("/v1/later/1"), KeptAliveConnection.get("/v1/later/2"));
      assertThat(connection.status("request 1")).isEqualTo(200);
      assertThat(connection.status("request 2, queued behind 1")).isEqualTo(429);

      connection.send(KeptAliveConnection.get("/v1/later/3"));
      assertThat(connection.status("request 3, on the same connection")).isEqualTo(429);
    }
  }
}
