package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.webflux.ReactiveRateLimitFilter;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.embedded.netty.NettyReactiveWebServerFactory;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import reactor.blockhound.BlockingOperationError;

/**
 * The starter in a reactive application on Reactor Netty (a random loopback port), driven by a real
 * HTTP client. BlockHound is installed in this JVM (blockhound-junit-platform) and reports any
 * blocking call on a Netty event-loop thread, where the filter and these handlers run: a decision
 * that blocked would answer 500 instead of 200 or 429. Each test uses its own rule or endpoint,
 * since the application context is shared; time moves only with the fake ticker.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = WebFluxRateLimitTest.App.class,
    properties = {
      "spring.main.web-application-type=reactive",
      "server.address=127.0.0.1",
      "slidingwindow.http.rate-limit-headers=true",
      "slidingwindow.http.rules.product.paths=/v1/product/**",
      "slidingwindow.http.rules.product.limits[0].permits=3",
      "slidingwindow.http.rules.product.limits[0].window=2s",
      "slidingwindow.http.rules.product.limits[1].permits=5",
      "slidingwindow.http.rules.product.limits[1].window=10s",
      "slidingwindow.http.rules.keyed.paths=/v1/keyed",
      "slidingwindow.http.rules.keyed.key=header:X-Api-Key",
      "slidingwindow.http.rules.keyed.limits[0].permits=1",
      "slidingwindow.http.rules.keyed.limits[0].window=1m",
      "slidingwindow.http.rules.trial.paths=/v1/trial",
      "slidingwindow.http.rules.trial.dry-run=true",
      "slidingwindow.http.rules.trial.limits[0].permits=1",
      "slidingwindow.http.rules.trial.limits[0].window=1m",
      "slidingwindow.http.rules.slow.paths=/v1/slow",
      "slidingwindow.http.rules.slow.key=global",
      "slidingwindow.http.rules.slow.limits[0].permits=1",
      "slidingwindow.http.rules.slow.limits[0].window=1m",
    })
class WebFluxRateLimitTest {

  private static final long SECOND = 1_000_000_000L;

  /** What the handler that blocks on purpose was told by BlockHound. */
  static final AtomicReference<Throwable> BLOCKED = new AtomicReference<>();

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
    MeterRegistry meterRegistry() {
      return new SimpleMeterRegistry();
    }

    /**
     * The in-memory backend, except for rule {@code slow}, whose limiter blocks its caller as a
     * synchronous backend would.
     */
    @Bean
    RateLimiterFactory rateLimiterFactory(FakeTicker ticker) {
      RateLimiterFactory inMemory = RateLimiterFactory.inMemory(ticker, 1_000);
      return (name, limits, countRefused) -> {
        KeyedRateLimiter<String> limiter = inMemory.create(name, limits, countRefused);
        return name.equals("slow") ? new BlockingLimiter(limiter) : limiter;
      };
    }

    @RestController
    static class Api {
      @GetMapping({"/v1/product/{id}", "/v1/keyed", "/v1/trial", "/v1/slow"})
      String ok() {
        return "ok";
      }

      @GetMapping("/orders/{id}")
      @RateLimit(limits = "2/10s", key = "pathVariables['id']", name = "order-reads")
      String order(@PathVariable("id") String id) {
        return "order " + id;
      }

      @GetMapping("/blocking")
      String blocking() {
        try {
          Thread.yield(); // a call that may block the thread, and lets no time pass on purpose
        } catch (Error e) {
          BLOCKED.set(e);
          throw e;
        }
        return "yielded";
      }
    }
  }

  /** A limiter whose asynchronous decision waits on the caller's thread before answering. */
  static final class BlockingLimiter implements KeyedRateLimiter<String> {
    private final KeyedRateLimiter<String> delegate;

    BlockingLimiter(KeyedRateLimiter<String> delegate) {
      this.delegate = delegate;
    }

    @Override
    public boolean tryAcquire(String key, long permits) {
      return delegate.tryAcquire(key, permits);
    }

    @Override
    public Decision decide(String key, long permits) {
      Thread.yield(); // gives the thread away: a blocking call on an event loop
      return delegate.decide(key, permits);
    }

    @Override
    public CompletionStage<Decision> decideAsync(String key, long permits) {
      return java.util.concurrent.CompletableFuture.completedFuture(decide(key, permits));
    }

    @Override
    public List<Limit> limits() {
      return delegate.limits();
    }
  }

  @LocalServerPort int port;
  @Autowired FakeTicker ticker;
  @Autowired MeterRegistry meters;
  @Autowired ApplicationContext context;

  private HttpResponse<String> get(String path, String... headers)
      throws IOException, InterruptedException {
    return LoopbackHttp.get(port, path, headers);
  }

  private double count(String rule, String outcome, String mode) {
    return meters
        .get(MicrometerRateLimitListener.METRIC)
        .tag("rule", rule)
        .tag("outcome", outcome)
        .tag("mode", mode)
        .counter()
        .count();
  }

  @Test
  void context_reactiveApplication_runsTheReactiveFilterOnNetty() {
    assertThat(context.getBeansOfType(ReactiveRateLimitFilter.class)).hasSize(1);
    assertThat(context.getBeanNamesForType(io.slidingwindow.servlet.RateLimitEnforcer.class))
        .isEmpty();
    assertThat(
            ((org.springframework.boot.web.reactive.context.ReactiveWebServerApplicationContext)
                    context)
                .getWebServer())
        .isInstanceOf(org.springframework.boot.web.embedded.netty.NettyWebServer.class);
  }

  @Test
  void rule_afterN_answers429WithHeadersAndProblemBody() throws Exception {
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> ok = get("/v1/product/" + i);
      assertThat(ok.statusCode()).isEqualTo(200);
      assertThat(ok.body()).isEqualTo("ok");
      assertThat(ok.headers().firstValue("RateLimit-Policy"))
          .hasValue("\"product-2s\";q=3;w=2, \"product-10s\";q=5;w=10");
      String remaining = "\"product-2s\";r=" + (2 - i);
      assertThat(ok.headers().firstValue("RateLimit").orElseThrow()).startsWith(remaining);
    }
    HttpResponse<String> refused = get("/v1/product/3");
    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(refused.headers().firstValue("Content-Type").orElseThrow())
        .startsWith("application/problem+json");
    // Default precision is window/1000 = 2 ms: the grants at 0 leave 2 s + at most 2 ms later.
    assertThat(refused.headers().firstValue("Retry-After")).hasValue("3");
    assertThat(refused.headers().firstValue("RateLimit")).hasValue("\"product-2s\";r=0;t=3");
    assertThat(refused.body())
        .isEqualTo(
            "{\"type\":\"about:blank\",\"title\":\"Too Many Requests\",\"status\":429,"
                + "\"detail\":\"Request rate limit exceeded; retry after 3 seconds.\"}");
    assertThat(count("product", "refused", "enforce")).isEqualTo(1);
    assertThat(count("product", "allowed", "enforce")).isEqualTo(3);
    ticker.advance(3 * SECOND);
    assertThat(get("/v1/product/4").statusCode()).isEqualTo(200);
  }

  @Test
  void rule_headerKeyEqualToAnAddress_neverSharesTheAddressBucket() throws Exception {
    // No header: keyed on the client address 127.0.0.1.
    assertThat(get("/v1/keyed").statusCode()).isEqualTo(200);
    assertThat(get("/v1/keyed").statusCode()).isEqualTo(429);
    // A header spelling that address has a bucket of its own, and so does every other value.
    assertThat(get("/v1/keyed", "X-Api-Key", "127.0.0.1").statusCode()).isEqualTo(200);
    assertThat(get("/v1/keyed", "X-Api-Key", "ip:127.0.0.1").statusCode()).isEqualTo(200);
    assertThat(get("/v1/keyed", "X-Api-Key", "127.0.0.1").statusCode()).isEqualTo(429);
  }

  @Test
  void dryRunRule_wouldRefuse_letsEveryRequestThroughAndCountsTheRefusals() throws Exception {
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> response = get("/v1/trial");
      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.headers().firstValue("RateLimit"))
          .hasValueSatisfying(v -> assertThat(v).startsWith("\"trial\";r=0"));
    }
    assertThat(count("trial", "allowed", "dry-run")).isEqualTo(1);
    assertThat(count("trial", "refused", "dry-run")).isEqualTo(2);
  }

  @Test
  void rateLimitAnnotation_onHandlerMethod_limitsEachPathVariableApart() throws Exception {
    assertThat(get("/orders/7").statusCode()).isEqualTo(200);
    HttpResponse<String> second = get("/orders/7");
    assertThat(second.statusCode()).isEqualTo(200);
    assertThat(second.headers().firstValue("RateLimit")).hasValue("\"order-reads\";r=0;t=11");
    HttpResponse<String> refused = get("/orders/7");
    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(refused.headers().firstValue("Retry-After")).isPresent();
    assertThat(refused.body()).contains("\"status\":429");
    assertThat(get("/orders/8").statusCode()).isEqualTo(200);
    assertThat(count("order-reads", "refused", "enforce")).isEqualTo(1);
  }

  @Test
  void pathFirewall_ambiguousSpelling_is400BeforeAnyRuleOrHandler() throws Exception {
    double before = meters.get(MicrometerRateLimitListener.REJECTED_PATHS_METRIC).counter().count();
    HttpResponse<String> response = get("/v1/product/%2e%2e");
    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(response.headers().firstValue("Content-Type").orElseThrow())
        .startsWith("application/problem+json");
    assertThat(response.body()).doesNotContain("ok");
    assertThat(meters.get(MicrometerRateLimitListener.REJECTED_PATHS_METRIC).counter().count())
        .isEqualTo(before + 1);
  }

  /** The check itself works: a handler that blocks the event loop is stopped and reported. */
  @Test
  void blockHound_blockingCallInAHandler_isReported() throws Exception {
    HttpResponse<String> response = get("/blocking");
    assertThat(response.statusCode()).isEqualTo(500);
    assertThat(BLOCKED.get())
        .isInstanceOf(BlockingOperationError.class)
        .hasMessageContaining("java.lang.Thread.yield");
  }

  /** The same check catches a decision that blocks: the request fails instead of passing. */
  @Test
  void blockHound_limiterThatBlocksTheEventLoop_failsTheRequest() throws Exception {
    assertThat(get("/v1/slow").statusCode()).isEqualTo(500);
  }
}
