package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.slidingwindow.LimiterKeys;
import io.slidingwindow.http.RequestKey;
import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.testkit.FakeTicker;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.test.context.TestPropertySource;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import reactor.core.publisher.Mono;

/**
 * Rules that count only failed logins ({@code count-statuses: [400-599]}), the same scenarios on
 * each web stack (the subclasses start a real server: Tomcat, Reactor Netty) through a real HTTP
 * client. A login answers 401 for a bad password and 200 for a good one. Each test uses its own
 * rule, since the context is shared; time stands still on the fake ticker unless a test moves it.
 */
@TestPropertySource(
    properties = {
      "server.address=127.0.0.1",
      "slidingwindow.http.rate-limit-headers=true",
      "slidingwindow.http.rules.fails-a.paths=/cs/a/**",
      "slidingwindow.http.rules.fails-b.paths=/cs/b/**",
      "slidingwindow.http.rules.fails-c.paths=/cs/c/**",
      "slidingwindow.http.rules.fails-d.paths=/cs/d/**",
      "slidingwindow.http.rules.fails-e.paths=/cs/e/**",
      "slidingwindow.http.rules.fails-f.paths=/cs/f/**",
      "slidingwindow.http.rules.all-g.paths=/cs/g/**",
      "slidingwindow.http.rules.fails-h.paths=/cs/h/**",
      "slidingwindow.http.rules.fails-h.key=global",
      "slidingwindow.http.rules.fails-h.count-statuses=400-599",
      "slidingwindow.http.rules.fails-h.limits[0].permits=1",
      "slidingwindow.http.rules.fails-h.limits[0].window=10s",
      "slidingwindow.http.rules.fails-a.key=global",
      "slidingwindow.http.rules.fails-a.count-statuses=400-599",
      "slidingwindow.http.rules.fails-a.limits[0].permits=3",
      "slidingwindow.http.rules.fails-a.limits[0].window=10s",
      "slidingwindow.http.rules.fails-b.key=global",
      "slidingwindow.http.rules.fails-b.count-statuses=400-599",
      "slidingwindow.http.rules.fails-b.limits[0].permits=3",
      "slidingwindow.http.rules.fails-b.limits[0].window=10s",
      "slidingwindow.http.rules.fails-c.key=global",
      "slidingwindow.http.rules.fails-c.count-statuses=400-599",
      "slidingwindow.http.rules.fails-c.limits[0].permits=3",
      "slidingwindow.http.rules.fails-c.limits[0].window=10s",
      "slidingwindow.http.rules.fails-d.key=global",
      "slidingwindow.http.rules.fails-d.count-statuses=400-599",
      "slidingwindow.http.rules.fails-d.limits[0].permits=3",
      "slidingwindow.http.rules.fails-d.limits[0].window=10s",
      "slidingwindow.http.rules.fails-e.key=global",
      "slidingwindow.http.rules.fails-e.count-statuses=400-599",
      "slidingwindow.http.rules.fails-e.limits[0].permits=3",
      "slidingwindow.http.rules.fails-e.limits[0].window=10s",
      "slidingwindow.http.rules.fails-f.key=global",
      "slidingwindow.http.rules.fails-f.count-statuses=400-599",
      "slidingwindow.http.rules.fails-f.limits[0].permits=3",
      "slidingwindow.http.rules.fails-f.limits[0].window=10s",
      "slidingwindow.http.rules.all-g.key=global",
      "slidingwindow.http.rules.all-g.limits[0].permits=3",
      "slidingwindow.http.rules.all-g.limits[0].window=10s",
    })
abstract class CountStatusesScenarios {

  /** How many exchanges of {@code /cs/{rule}/hang} were cancelled. */
  static final AtomicInteger CANCELLED = new AtomicInteger();

  /**
   * How many exchanges of {@code /cs/annotated/} the servlet stack has completed, every
   * interceptor's {@code afterCompletion} included (where an annotated handler's permits are
   * settled, after the answer is sent).
   */
  static final AtomicInteger ANNOTATED_COMPLETED = new AtomicInteger();

  @SpringBootApplication
  static class App {
    @Bean
    FakeTicker ticker() {
      return new FakeTicker(5_000_000_000L);
    }

    /**
     * On the servlet stack, an interceptor first in line, so that its {@code afterCompletion} runs
     * after the rate limit interceptor's: it counts the annotated handler's finished exchanges.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    static class Completions implements WebMvcConfigurer {
      @Override
      public void addInterceptors(InterceptorRegistry registry) {
        registry
            .addInterceptor(
                new HandlerInterceptor() {
                  @Override
                  public void afterCompletion(
                      HttpServletRequest request,
                      HttpServletResponse response,
                      Object handler,
                      Exception error) {
                    if (request.getRequestURI().startsWith("/cs/annotated/")) {
                      ANNOTATED_COMPLETED.incrementAndGet();
                    }
                  }
                })
            .order(Ordered.HIGHEST_PRECEDENCE);
      }
    }

    @RestController
    static class Logins {
      @GetMapping("/cs/{rule}/login")
      ResponseEntity<String> login(@RequestParam String password) {
        return answer(password);
      }

      @GetMapping("/cs/{rule}/async-login")
      CompletableFuture<ResponseEntity<String>> asyncLogin(@RequestParam String password) {
        return CompletableFuture.supplyAsync(() -> answer(password));
      }

      @GetMapping("/cs/{rule}/boom")
      String boom(@PathVariable String rule) {
        throw new IllegalStateException("the user store is down for " + rule);
      }

      @GetMapping("/cs/{rule}/hang")
      Mono<String> hang() {
        return Mono.<String>never().doOnCancel(CANCELLED::incrementAndGet);
      }

      @GetMapping("/cs/annotated/login")
      @RateLimit(limits = "3/10s", key = "global", countStatuses = "400-599")
      ResponseEntity<String> annotated(@RequestParam String password) {
        return answer(password);
      }

      private static ResponseEntity<String> answer(String password) {
        return password.equals("good")
            ? ResponseEntity.ok("welcome")
            : ResponseEntity.status(HttpStatus.UNAUTHORIZED).body("bad password");
      }
    }
  }

  @LocalServerPort int port;

  @Autowired FakeTicker ticker;

  @Autowired ObjectProvider<ReloadableRules<?>> rules;

  HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return LoopbackHttp.get(port, path);
  }

  private int login(String prefix, String password) throws IOException, InterruptedException {
    return get(prefix + "login?password=" + password).statusCode();
  }

  /**
   * Waits until the rule counts {@code failures} for the global key: on the servlet stack a request
   * is settled just after its answer is sent, so the client may ask again first.
   */
  void awaitCounted(String rule, long failures) {
    String key = LimiterKeys.bounded(RequestKey.global().value());
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                rules.getObject().limiter(rule).orElseThrow().peek(key).limits().get(0).used()
                    == failures);
  }

  /**
   * Good logins never count; the 4th failure is refused, and so is everything then. For a rule of
   * the filter ({@code awaited}), each answer's settlement is awaited before the next request.
   */
  private void failedLoginsOnly(String prefix, String awaited)
      throws IOException, InterruptedException {
    for (int i = 0; i < 10; i++) {
      assertThat(login(prefix, "good")).isEqualTo(200);
      if (awaited != null) {
        awaitCounted(awaited, 0);
      }
    }
    for (int i = 0; i < 3; i++) {
      assertThat(login(prefix, "bad")).isEqualTo(401);
      if (awaited != null) {
        awaitCounted(awaited, i + 1);
      }
    }
    assertThat(login(prefix, "bad")).isEqualTo(429);
    assertThat(login(prefix, "good")).isEqualTo(429);
  }

  @Test
  void countStatuses_goodLoginsNeverCount_theFourthFailureIsRefusedAndSoIsAGoodOne()
      throws Exception {
    failedLoginsOnly("/cs/a/", "fails-a");

    ticker.advance(Duration.ofSeconds(11));
    assertThat(login("/cs/a/", "good")).isEqualTo(200);
  }

  @Test
  void countStatuses_asyncHandler_isSettledWhenTheAnswerIsKnown() throws Exception {
    failedLoginsOnly("/cs/b/async-", "fails-b");
  }

  /**
   * Waits until the annotated handler's exchanges so far are settled; on the servlet stack that
   * happens just after the answer is sent (WebFlux settles before, so it does not wait).
   */
  void awaitAnnotatedSettled(int exchanges) {}

  @Test
  void countStatuses_annotatedHandler_countsFailuresOnly() throws Exception {
    int before = ANNOTATED_COMPLETED.get();
    for (int i = 0; i < 10; i++) {
      assertThat(login("/cs/annotated/", "good")).isEqualTo(200);
      awaitAnnotatedSettled(before + i + 1);
    }
    for (int i = 0; i < 3; i++) {
      assertThat(login("/cs/annotated/", "bad")).isEqualTo(401);
      awaitAnnotatedSettled(before + 11 + i);
    }
    assertThat(login("/cs/annotated/", "bad")).isEqualTo(429);
    assertThat(login("/cs/annotated/", "good")).isEqualTo(429);
  }

  @Test
  void countStatuses_anExceptionNothingHandles_countsAsServerError() throws Exception {
    for (int i = 0; i < 3; i++) {
      assertThat(get("/cs/c/boom").statusCode()).isEqualTo(500);
    }
    awaitCounted("fails-c", 3);

    assertThat(login("/cs/c/", "good")).isEqualTo(429);
  }

  @Test
  void countStatuses_concurrentFailures_letThroughAtMostTheLimit() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(20);
    try {
      List<Future<Integer>> answers = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        answers.add(pool.submit(() -> login("/cs/d/", "bad")));
      }
      Map<Integer, Integer> statuses = new TreeMap<>();
      for (Future<Integer> answer : answers) {
        statuses.merge(answer.get(30, TimeUnit.SECONDS), 1, Integer::sum);
      }

      assertThat(statuses).isEqualTo(Map.of(401, 3, 429, 17));
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void countStatuses_headers_tellTheRemainingAsOfTheReservation() throws Exception {
    HttpResponse<String> good = get("/cs/e/login?password=good");
    awaitCounted("fails-e", 0);
    HttpResponse<String> again = get("/cs/e/login?password=good");
    awaitCounted("fails-e", 0);
    HttpResponse<String> bad = get("/cs/e/login?password=bad");
    awaitCounted("fails-e", 1);
    HttpResponse<String> afterBad = get("/cs/e/login?password=good");

    assertThat(good.headers().firstValue("RateLimit").orElseThrow()).contains("\"fails-e\";r=2");
    assertThat(again.headers().firstValue("RateLimit").orElseThrow()).contains("r=2");
    assertThat(bad.headers().firstValue("RateLimit").orElseThrow()).contains("r=2");
    assertThat(afterBad.headers().firstValue("RateLimit").orElseThrow()).contains("r=1");
  }

  @Test
  void countStatuses_unset_countsEveryRequestAsBefore() throws Exception {
    for (int i = 0; i < 3; i++) {
      assertThat(login("/cs/g/", "good")).isEqualTo(200);
    }

    assertThat(login("/cs/g/", "good")).isEqualTo(429);
  }
}
