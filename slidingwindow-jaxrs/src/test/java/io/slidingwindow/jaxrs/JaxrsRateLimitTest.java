package io.slidingwindow.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Decision;
import io.slidingwindow.Limit;
import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimitListener;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.http.RequestKey;
import io.slidingwindow.testkit.FakeTicker;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The filter and {@code @RateLimit} on Jersey (Grizzly) and RESTEasy (Undertow), over HTTP. */
class JaxrsRateLimitTest {

  private final FakeTicker ticker = new FakeTicker();
  private final List<String> events = Collections.synchronizedList(new ArrayList<>());
  private final Api api = new Api();
  private JaxrsServers.Running server;

  private final RateLimitListener recorder =
      new RateLimitListener() {
        @Override
        public void onAllowed(HttpRule rule, Decision decision) {
          events.add("allowed " + rule.name());
        }

        @Override
        public void onRefused(HttpRule rule, Decision decision, boolean dryRun) {
          events.add("refused " + rule.name() + (dryRun ? " dry-run" : ""));
        }

        @Override
        public void onError(HttpRule rule, RuntimeException error) {
          events.add("error " + rule.name());
        }
      };

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private RateLimitFilter.Builder filter() {
    return RateLimitFilter.builder()
        .limiterFactory(RateLimiterFactory.inMemory(ticker, 1_000))
        .listener(recorder)
        .rateLimitHeaders(true);
  }

  private RateLimitFeature.Builder feature() {
    return RateLimitFeature.builder()
        .limiterFactory(RateLimiterFactory.inMemory(ticker, 1_000))
        .listener(recorder)
        .rateLimitHeaders(true)
        .keyResolver(
            "issued",
            request -> {
              String key = request.getHeaderString("X-Api-Key");
              return key != null && Set.of("demo-key-1").contains(key)
                  ? RequestKey.custom(key)
                  : JaxrsKeyResolver.clientAddress(ClientAddresses.direct()).key(request);
            });
  }

  private void start(JaxrsServers.Implementation runtime, Object... singletons) {
    List<Object> all = new ArrayList<>(List.of(singletons));
    all.add(api);
    server = JaxrsServers.start(runtime, all);
  }

  private HttpResponse<String> get(String path, String... headers) {
    return Http.get(server.uri(path), headers);
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void filter_sixthRequestInTenSeconds_429WithRetryAfterRateLimitHeadersAndProblemBody(
      JaxrsServers.Implementation runtime) {
    start(
        runtime,
        filter()
            .rule(
                HttpRule.builder("product")
                    .path("/v1/product/**")
                    .limit(Limit.parse("5/10s"))
                    .build())
            .build());
    for (int i = 0; i < 5; i++) {
      HttpResponse<String> ok = get("/v1/product/" + i);
      assertThat(ok.statusCode()).isEqualTo(200);
      assertThat(ok.body()).isEqualTo("product " + i);
      assertThat(ok.headers().firstValue("RateLimit-Policy")).contains("\"product\";q=5;w=10");
      assertThat(ok.headers().firstValue("RateLimit"))
          .contains("\"product\";r=" + (4 - i) + ";t=11");
      ticker.advance(Duration.ofSeconds(1));
    }

    HttpResponse<String> refused = get("/v1/product/6");

    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(refused.headers().firstValue("Retry-After")).contains("6");
    assertThat(refused.headers().firstValue("RateLimit-Policy")).contains("\"product\";q=5;w=10");
    assertThat(refused.headers().firstValue("RateLimit")).contains("\"product\";r=0;t=6");
    assertThat(refused.headers().firstValue("Content-Type").orElseThrow())
        .startsWith("application/problem+json");
    assertThat(refused.body())
        .isEqualTo(
            "{\"type\":\"about:blank\",\"title\":\"Too Many Requests\",\"status\":429,"
                + "\"detail\":\"Request rate limit exceeded; retry after 6 seconds.\"}");
    assertThat(api.served).hasSize(5);
    assertThat(get("/v1/admin").statusCode()).as("another path").isEqualTo(200);

    ticker.advance(Duration.ofSeconds(5));
    assertThat(get("/v1/product/7").statusCode())
        .as("one second before Retry-After")
        .isEqualTo(429);
    ticker.advance(Duration.ofSeconds(1));
    assertThat(get("/v1/product/8").statusCode()).as("at Retry-After").isEqualTo(200);
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void annotation_thirdCall_429_otherMethodsAndTheFilterUnaffected(
      JaxrsServers.Implementation runtime) {
    start(runtime, feature().build());

    assertThat(get("/hello").statusCode()).isEqualTo(200);
    HttpResponse<String> second = get("/hello");
    HttpResponse<String> third = get("/hello");

    assertThat(second.headers().firstValue("RateLimit")).contains("\"Api.hello\";r=0;t=11");
    assertThat(third.statusCode()).isEqualTo(429);
    assertThat(third.headers().firstValue("Retry-After")).contains("11");
    assertThat(api.served).containsExactly("hello", "hello");
    assertThat(get("/v1/admin").statusCode()).isEqualTo(200);
    assertThat(get("/v1/admin").headers().firstValue("RateLimit")).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void filterAndAnnotation_bothDecide_headersReportBoth_annotationRefuses(
      JaxrsServers.Implementation runtime) {
    start(
        runtime,
        filter().rule(HttpRule.builder("all").limit(Limit.parse("100/1m")).build()).build(),
        feature().build());

    HttpResponse<String> first = get("/hello");
    get("/hello");
    HttpResponse<String> third = get("/hello");

    assertThat(first.headers().firstValue("RateLimit-Policy"))
        .contains("\"all\";q=100;w=60, \"Api.hello\";q=2;w=10");
    assertThat(first.headers().firstValue("RateLimit"))
        .contains("\"all\";r=99;t=61, \"Api.hello\";r=1;t=11");
    assertThat(third.statusCode()).isEqualTo(429);
    assertThat(third.headers().firstValue("RateLimit"))
        .contains("\"all\";r=97, \"Api.hello\";r=0;t=11");
    assertThat(events).containsSubsequence("allowed all", "refused Api.hello");
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void headerKey_eachValueItsOwnWindow_forgedAddressKept_missingFallsBackToTheAddress(
      JaxrsServers.Implementation runtime) {
    start(runtime, feature().build());

    get("/items/1");
    get("/items/2");
    assertThat(get("/items/3").statusCode()).isEqualTo(429);
    assertThat(get("/items/4", "X-Api-Key", "127.0.0.1").statusCode()).isEqualTo(200);
    assertThat(get("/items/5", "X-Api-Key", "ip:127.0.0.1").statusCode()).isEqualTo(200);
    assertThat(get("/items/6", "X-Api-Key", "   ").statusCode())
        .as("a blank header is the client address")
        .isEqualTo(429);
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void dryRun_wouldRefuse_letsThroughAndTells(JaxrsServers.Implementation runtime) {
    start(runtime, feature().build());

    assertThat(get("/search").statusCode()).isEqualTo(200);
    assertThat(get("/search").statusCode()).isEqualTo(200);

    assertThat(events).containsExactly("allowed Api.search", "refused Api.search dry-run");
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void keyThatThrows_letsThroughAndTellsTheListener(JaxrsServers.Implementation runtime) {
    start(
        runtime,
        filter()
            .rule(
                HttpRule.builder("broken").limit(Limit.parse("1/10s")).build(),
                request -> {
                  throw new IllegalStateException("no key");
                })
            .build());

    assertThat(get("/v1/admin").statusCode()).isEqualTo(200);
    assertThat(get("/v1/admin").statusCode()).isEqualTo(200);
    assertThat(events).containsExactly("error broken", "error broken");
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void forwardedFor_trustedOnlyFromTrustedProxies(JaxrsServers.Implementation runtime) {
    start(
        runtime,
        filter()
            .rule(
                HttpRule.builder("direct")
                    .path("/v1/product/**")
                    .limit(Limit.parse("1/10s"))
                    .build())
            .rule(
                HttpRule.builder("proxied").path("/v1/admin").limit(Limit.parse("1/10s")).build(),
                JaxrsKeyResolver.clientAddress(ClientAddresses.trusting(List.of("127.0.0.1"))))
            .build());

    get("/v1/product/1", "X-Forwarded-For", "203.0.113.1");
    assertThat(get("/v1/product/2", "X-Forwarded-For", "203.0.113.2").statusCode())
        .as("a rotated X-Forwarded-For from an untrusted peer")
        .isEqualTo(429);
    assertThat(get("/v1/admin", "X-Forwarded-For", "2001:db8::1").statusCode()).isEqualTo(200);
    assertThat(get("/v1/admin", "X-Forwarded-For", "2001:db8::2").statusCode())
        .as("the same /64 behind a trusted proxy")
        .isEqualTo(429);
    assertThat(get("/v1/admin", "X-Forwarded-For", "198.51.100.9").statusCode())
        .as("another client behind the proxy")
        .isEqualTo(200);
  }
}
