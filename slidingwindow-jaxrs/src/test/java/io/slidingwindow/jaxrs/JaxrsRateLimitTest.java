package io.slidingwindow.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Decision;
import io.slidingwindow.Limit;
import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimitListener;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.http.RequestKey;
import io.slidingwindow.http.StatusRanges;
import io.slidingwindow.testkit.FakeTicker;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
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

  /**
   * A rule that counts failed logins only: the response filter settles each reservation with the
   * final status, so good logins never count, the fourth failure is refused, and then so is a good
   * login, until the failures leave the window.
   */
  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void filter_countStatuses_countsOnlyFailedLoginsAndRefusesTheFourth(
      JaxrsServers.Implementation runtime) {
    start(
        runtime,
        filter()
            .rule(
                HttpRule.builder("logins")
                    .path("/login")
                    .limit(Limit.parse("3/10s"))
                    .countStatuses(StatusRanges.parse("400-599"))
                    .build())
            .build());
    for (int i = 0; i < 6; i++) {
      assertThat(get("/login?password=secret").statusCode()).as("good login %d", i).isEqualTo(200);
    }
    for (int i = 0; i < 3; i++) {
      assertThat(get("/login?password=guess").statusCode()).as("failure %d", i).isEqualTo(401);
    }

    assertThat(get("/login?password=guess").statusCode()).isEqualTo(429);
    assertThat(get("/login?password=secret").statusCode()).as("the window is full").isEqualTo(429);
    assertThat(api.served.stream().filter("login"::equals).count()).isEqualTo(9);

    ticker.advance(Duration.ofSeconds(11));
    assertThat(get("/login?password=secret").statusCode()).isEqualTo(200);
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

  /**
   * Keys on {@code X-Api-Key}, else the client address; throws when {@code X-Fault} says {@code
   * throw} and gives no key when it says {@code null}.
   */
  static JaxrsKeyResolver faultyKey(ClientAddresses addresses) {
    JaxrsKeyResolver apiKey = JaxrsKeyResolver.header("X-Api-Key", addresses);
    return request -> {
      String fault = request.getHeaderString("X-Fault");
      if ("throw".equals(fault)) {
        throw new IllegalStateException("no key");
      }
      return "null".equals(fault) ? null : apiKey.key(request);
    };
  }

  /** A resource limited by {@code @RateLimit} on the feature's {@code faulty} resolver. */
  @Path("faulty")
  public static class Faulty {
    @GET
    @RateLimit(limits = "2/10s", key = "resolver:faulty", name = "faulty")
    public String faulty() {
      return "faulty";
    }
  }

  /** A resource limited by {@code @RateLimit} on the feature's {@code throwing} resolver. */
  @Path("throwing")
  public static class Throwing {
    @GET
    @RateLimit(limits = "5/10s", key = "resolver:throwing", name = "throwing")
    public String throwing() {
      return "throwing";
    }
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void keyThatAlwaysThrows_sixthRequestInTheWindow_refused_filterAndAnnotation(
      JaxrsServers.Implementation runtime) {
    JaxrsKeyResolver throwing =
        request -> {
          throw new IllegalStateException("no key");
        };
    start(
        runtime,
        filter()
            .rule(
                HttpRule.builder("broken").path("/v1/admin").limit(Limit.parse("5/10s")).build(),
                throwing)
            .build(),
        feature().keyResolver("throwing", throwing).build(),
        new Throwing());

    for (String path : List.of("/v1/admin", "/throwing")) {
      for (int i = 1; i <= 5; i++) {
        assertThat(get(path).statusCode()).as("%s, request %d", path, i).isEqualTo(200);
      }
      HttpResponse<String> sixth = get(path);
      assertThat(sixth.statusCode()).as("%s, request 6", path).isEqualTo(429);
      assertThat(sixth.headers().firstValue("Retry-After")).isPresent();
    }
    assertThat(api.served).hasSize(5);
    assertThat(events).filteredOn(event -> event.startsWith("error")).hasSize(12);
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void keyThatThrows_countsUnderTheClientAddress_andTellsTheListener(
      JaxrsServers.Implementation runtime) {
    start(
        runtime,
        filter()
            .rule(
                HttpRule.builder("broken").path("/v1/admin").limit(Limit.parse("2/10s")).build(),
                faultyKey(ClientAddresses.direct()))
            .build());

    assertThat(get("/v1/admin", "X-Fault", "throw", "X-Api-Key", "alpha").statusCode())
        .isEqualTo(200);
    assertThat(get("/v1/admin", "X-Fault", "null").statusCode()).isEqualTo(200);
    assertThat(get("/v1/admin", "X-Fault", "throw", "X-Api-Key", "alpha").statusCode())
        .isEqualTo(429);
    assertThat(get("/v1/admin").statusCode())
        .as("the address's window is the one the faulty keys spent")
        .isEqualTo(429);
    assertThat(get("/v1/admin", "X-Api-Key", "alpha").statusCode())
        .as("the key the throwing requests carried has its own window, untouched")
        .isEqualTo(200);
    assertThat(api.served).containsExactly("admin", "admin", "admin");
    assertThat(events)
        .containsExactly(
            "error broken",
            "allowed broken",
            "error broken",
            "allowed broken",
            "error broken",
            "refused broken",
            "refused broken",
            "allowed broken");
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void keyThatThrows_afterTheAddressSpentItsLimit_refused_filterAndAnnotation(
      JaxrsServers.Implementation runtime) {
    start(
        runtime,
        filter()
            .rule(
                HttpRule.builder("broken").path("/v1/admin").limit(Limit.parse("2/10s")).build(),
                faultyKey(ClientAddresses.direct()))
            .build(),
        feature().keyResolver("faulty", faultyKey(ClientAddresses.direct())).build(),
        new Faulty());

    for (String path : List.of("/v1/admin", "/faulty")) {
      assertThat(get(path).statusCode()).isEqualTo(200);
      assertThat(get(path).statusCode()).isEqualTo(200);
      for (String fault : List.of("throw", "null", "throw")) {
        assertThat(get(path, "X-Fault", fault).statusCode())
            .as("%s with X-Fault: %s", path, fault)
            .isEqualTo(429);
      }
    }
    assertThat(events).contains("error broken", "error faulty");
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void keyThatThrows_behindATrustedProxy_countsUnderTheForwardedClient(
      JaxrsServers.Implementation runtime) {
    ClientAddresses proxy = ClientAddresses.trusting(List.of("127.0.0.1"));
    start(
        runtime,
        filter()
            .clientAddresses(proxy)
            .rule(
                HttpRule.builder("broken").path("/v1/admin").limit(Limit.parse("1/10s")).build(),
                faultyKey(proxy))
            .build(),
        feature().clientAddresses(proxy).keyResolver("faulty", faultyKey(proxy)).build(),
        new Faulty());

    for (String path : List.of("/v1/admin", "/faulty")) {
      for (String client : List.of("198.51.100.1", "198.51.100.2")) {
        assertThat(get(path, "X-Fault", "throw", "X-Forwarded-For", client).statusCode())
            .as("%s from %s", path, client)
            .isEqualTo(200);
      }
    }
    assertThat(get("/v1/admin", "X-Fault", "throw", "X-Forwarded-For", "198.51.100.1").statusCode())
        .isEqualTo(429);
    assertThat(get("/faulty", "X-Fault", "null", "X-Forwarded-For", "198.51.100.2").statusCode())
        .as("the annotation's limit is 2: the second of this client")
        .isEqualTo(200);
    assertThat(get("/faulty", "X-Fault", "throw", "X-Forwarded-For", "198.51.100.2").statusCode())
        .isEqualTo(429);
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
