package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.slidingwindow.servlet.KeyResolver;
import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.testkit.FakeTicker;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * The starter in a real embedded Tomcat on a random loopback port, driven by a real HTTP client;
 * time moves only when the test moves the fake ticker. Each test uses its own rule or endpoint,
 * since the application context (and its limiters) is shared.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = RateLimitHttpTest.App.class,
    properties = {
      "server.address=127.0.0.1",
      "slidingwindow.http.rate-limit-headers=true",
      "slidingwindow.http.trusted-proxies=10.0.0.0/8",
      "slidingwindow.http.rules.product.paths=/v1/product/**",
      "slidingwindow.http.rules.product.limits[0].permits=3",
      "slidingwindow.http.rules.product.limits[0].window=2s",
      "slidingwindow.http.rules.product.limits[1].permits=5",
      "slidingwindow.http.rules.product.limits[1].window=10s",
      "slidingwindow.http.rules.seed.paths=/v1/seed",
      "slidingwindow.http.rules.seed.key=global",
      "slidingwindow.http.rules.seed.count-refused-attempts=true",
      "slidingwindow.http.rules.seed.limits[0].permits=5",
      "slidingwindow.http.rules.seed.limits[0].window=60s",
      "slidingwindow.http.rules.trial.paths=/v1/trial",
      "slidingwindow.http.rules.trial.dry-run=true",
      "slidingwindow.http.rules.trial.limits[0].permits=1",
      "slidingwindow.http.rules.trial.limits[0].window=1m",
      "slidingwindow.http.rules.keyed.paths=/v1/keyed",
      "slidingwindow.http.rules.keyed.key=header:X-Api-Key",
      "slidingwindow.http.rules.keyed.limits[0].permits=1",
      "slidingwindow.http.rules.keyed.limits[0].window=1m",
      "slidingwindow.http.rules.orders.paths=/orders/**",
      "slidingwindow.http.rules.orders.limits[0].permits=100",
      "slidingwindow.http.rules.orders.limits[0].window=1m",
      "slidingwindow.http.rules.tenant.paths=/v1/tenant",
      "slidingwindow.http.rules.tenant.key=bean:brokenKey",
      "slidingwindow.http.rules.tenant.limits[0].permits=1",
      "slidingwindow.http.rules.tenant.limits[0].window=1m",
      "slidingwindow.http.rules.idle.paths=/v1/idle",
      "slidingwindow.http.rules.idle.limits[0].permits=1",
      "slidingwindow.http.rules.idle.limits[0].window=1m",
    })
class RateLimitHttpTest {

  private static final long SECOND = 1_000_000_000L;

  @SpringBootApplication
  static class App {
    @Bean
    FakeTicker ticker() {
      return new FakeTicker(-7 * SECOND);
    }

    @Bean
    MeterRegistry meterRegistry() {
      return new SimpleMeterRegistry();
    }

    @Bean
    KeyResolver brokenKey() {
      return request -> {
        throw new IllegalStateException("tenant directory unavailable");
      };
    }

    @RestController
    static class Api {
      @GetMapping({"/v1/product/{id}", "/v1/seed", "/v1/trial", "/v1/keyed", "/v1/tenant"})
      String ok() {
        return "ok";
      }

      @GetMapping("/orders/{id}")
      @RateLimit(
          limits = {"2/10s"},
          key = "pathVariables['id']",
          name = "order-reads")
      String order(@PathVariable("id") String id) {
        return "order " + id;
      }

      @GetMapping("/async")
      @RateLimit(limits = "2/1m", name = "async")
      Callable<String> async() {
        return () -> "later";
      }

      @GetMapping("/never-called")
      @RateLimit(limits = "1/1m", name = "never-called")
      String neverCalled() {
        return "never";
      }

      @GetMapping("/fragile")
      @RateLimit(limits = "1/1m", key = "headerValue('X-Tenant').toUpperCase()", name = "fragile")
      String fragile() {
        return "fragile";
      }

      @GetMapping("/search")
      @RateLimit(limits = "1/1m", key = "header('X-Api-Key') ?: clientIp")
      String search() {
        return "results";
      }
    }
  }

  @LocalServerPort int port;
  @Autowired FakeTicker ticker;
  @Autowired MeterRegistry meters;

  private HttpResponse<String> get(String path, String... headers)
      throws IOException, InterruptedException {
    return LoopbackHttp.get(port, path, headers);
  }

  @Test
  void rule_afterN_answers429WithHeadersBodyAndMetrics() throws Exception {
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> ok = get("/v1/product/" + i);
      assertThat(ok.statusCode()).isEqualTo(200);
      assertThat(ok.headers().firstValue("RateLimit-Policy"))
          .hasValue("\"product-2s\";q=3;w=2, \"product-10s\";q=5;w=10");
    }
    HttpResponse<String> refused = get("/v1/product/3");
    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(refused.headers().firstValue("Content-Type").orElseThrow())
        .startsWith("application/problem+json");
    long retryAfter = Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow());
    // Default precision is window/1000 = 2 ms: the grants at 0 leave 2 s + at most 2 ms later.
    assertThat(retryAfter).isEqualTo(3);
    assertThat(refused.headers().firstValue("RateLimit")).hasValue("\"product-2s\";r=0;t=3");
    assertThat(refused.body())
        .isEqualTo(
            "{\"type\":\"about:blank\",\"title\":\"Too Many Requests\",\"status\":429,"
                + "\"detail\":\"Request rate limit exceeded; retry after 3 seconds.\"}");

    ticker.advance(2 * SECOND);
    assertThat(get("/v1/product/4").statusCode()).as("2 s is not yet the true wait").isEqualTo(429);
    ticker.advance(SECOND);
    assertThat(get("/v1/product/5").statusCode()).as("Retry-After later").isEqualTo(200);

    assertThat(count("product", "allowed")).isEqualTo(4);
    assertThat(count("product", "refused")).isEqualTo(2);
  }

  @Test
  void seedRule_workedExampleWithPenalty_givesTheSeedsStatuses() throws Exception {
    long[] times = {0, 5, 30, 50, 65, 85, 88, 105, 109, 115, 146}; // seconds after 09:30:20
    StringBuilder statuses = new StringBuilder();
    long previous = 0;
    for (long t : times) {
      ticker.advance((t - previous) * SECOND);
      previous = t;
      statuses.append(get("/v1/seed").statusCode()).append(' ');
    }
    assertThat(statuses.toString().trim()).isEqualTo("200 200 200 200 200 200 200 200 429 429 200");
  }

  @Test
  void dryRunRule_neverRefusesButCounts() throws Exception {
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> response = get("/v1/trial");
      assertThat(response.statusCode()).isEqualTo(200);
    }
    assertThat(get("/v1/trial").headers().firstValue("RateLimit").orElseThrow()).contains(";r=0;");
    assertThat(
            meters
                .get(MicrometerRateLimitListener.METRIC)
                .tags("rule", "trial", "outcome", "refused", "mode", "dry-run")
                .counter()
                .count())
        .isEqualTo(3);
  }

  @Test
  void headerKey_fromUntrustedClient_spoofedForwardedForChangesNothing() throws Exception {
    assertThat(get("/v1/keyed", "X-Forwarded-For", "198.51.100.1").statusCode()).isEqualTo(200);
    assertThat(get("/v1/keyed", "X-Forwarded-For", "198.51.100.2").statusCode()).isEqualTo(429);
    assertThat(get("/v1/keyed", "X-Api-Key", "alice").statusCode()).isEqualTo(200);
    assertThat(get("/v1/keyed", "X-Api-Key", "alice").statusCode()).isEqualTo(429);
  }

  @Test
  void annotation_spelKeyOnPathVariable_limitsEachOrderSeparately() throws Exception {
    assertThat(get("/orders/1").statusCode()).isEqualTo(200);
    assertThat(get("/orders/1").statusCode()).isEqualTo(200);
    HttpResponse<String> refused = get("/orders/1");
    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(refused.headers().firstValue("Retry-After"))
        .hasValue("11"); // 10 s + 10 ms precision
    // The filter's rule and the annotation both report, in the order they ran. "orders" gets more
    // quota only when its first permit leaves, about 60 s from now, later than Retry-After: its t
    // is
    // left out (draft-10: Retry-After must not be earlier than t).
    assertThat(refused.headers().firstValue("RateLimit-Policy"))
        .hasValue("\"orders\";q=100;w=60, \"order-reads\";q=2;w=10");
    assertThat(refused.headers().firstValue("RateLimit"))
        .hasValue("\"orders\";r=97, \"order-reads\";r=0;t=11");
    assertThat(get("/orders/2").statusCode()).isEqualTo(200);
    assertThat(count("order-reads", "refused")).isEqualTo(1);
    ticker.advance(Duration.ofSeconds(11));
    assertThat(get("/orders/1").statusCode()).isEqualTo(200);
  }

  @Test
  void annotation_elvisKey_fallsBackToTheClientAddress() throws Exception {
    assertThat(get("/search", "X-Api-Key", "k1").statusCode()).isEqualTo(200);
    assertThat(get("/search", "X-Api-Key", "k1").statusCode()).isEqualTo(429);
    assertThat(get("/search").statusCode()).isEqualTo(200);
    assertThat(get("/search").statusCode()).isEqualTo(429);
  }

  @Test
  void annotation_asyncHandler_isCountedOncePerRequest() throws Exception {
    HttpResponse<String> first = get("/async");
    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.body()).isEqualTo("later");
    assertThat(get("/async").statusCode()).isEqualTo(200);
    assertThat(get("/async").statusCode()).isEqualTo(429);
    assertThat(count("async", "allowed")).isEqualTo(2);
  }

  /** A key that throws skips nothing: the request counts under its address, and is errored. */
  @Test
  void failingKeys_countUnderTheClientAddressAndAreCountedAsErrored() throws Exception {
    assertThat(get("/v1/tenant").statusCode()).isEqualTo(200);
    assertThat(get("/v1/tenant").statusCode())
        .as("the address's one permit is spent")
        .isEqualTo(429);
    assertThat(count("tenant", "errored")).isEqualTo(2);
    assertThat(count("tenant", "allowed")).isEqualTo(1);
    assertThat(count("tenant", "refused")).isEqualTo(1);

    assertThat(get("/fragile").body())
        .isEqualTo("fragile"); // no X-Tenant: the key expression throws, the address counts
    assertThat(count("fragile", "errored")).isEqualTo(1);
    assertThat(get("/fragile", "X-Tenant", "acme").statusCode()).isEqualTo(200);
    assertThat(get("/fragile", "X-Tenant", "acme").statusCode()).isEqualTo(429);
    assertThat(get("/fragile").statusCode()).as("the address's permit is spent").isEqualTo(429);
    assertThat(count("fragile", "allowed")).isEqualTo(2);
    assertThat(count("fragile", "refused")).isEqualTo(2);
  }

  @Test
  void counters_ofEveryRule_existAtZeroBeforeAnyRequest() {
    for (String outcome : new String[] {"allowed", "refused", "errored"}) {
      assertThat(count("idle", outcome)).as(outcome).isZero();
    }
    assertThat(
            meters
                .get(MicrometerRateLimitListener.METRIC)
                .tags("rule", "trial", "outcome", "allowed", "mode", "dry-run")
                .counter())
        .isNotNull();
    for (String outcome : new String[] {"allowed", "refused", "errored"}) {
      assertThat(count("never-called", outcome)).as("annotation rules too: " + outcome).isZero();
    }
  }

  private double count(String rule, String outcome) {
    return meters
        .get(MicrometerRateLimitListener.METRIC)
        .tags("rule", rule, "outcome", outcome, "mode", "enforce")
        .counter()
        .count();
  }
}
