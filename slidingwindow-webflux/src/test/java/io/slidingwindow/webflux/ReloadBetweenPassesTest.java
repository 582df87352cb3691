package io.slidingwindow.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.EnforcementCore;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.webflux.internal.ReactiveFilters;
import io.slidingwindow.webflux.internal.ReactiveKeySource;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatusCode;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Filters over rules that are replaced before every pass over an exchange (a reload that keeps each
 * rule's limiter, as the Spring Boot starter's does): the exchange finishes with the rules it
 * started with, so each rule counts it once, and a rule of 3 per minute lets 3 exchanges through.
 * Exchanges are mock ones, run through the filters directly; time stands still on a fake ticker.
 */
class ReloadBetweenPassesTest {

  private static final HttpRule EVERY =
      HttpRule.builder("every").limit(Limit.exact(3, Duration.ofMinutes(1))).build();
  private static final HttpRule ITEMS =
      HttpRule.builder("items")
          .path("/items/**")
          .limit(Limit.exact(3, Duration.ofMinutes(1)))
          .build();

  private final RateLimiterFactory memory = RateLimiterFactory.inMemory(new FakeTicker(), 1_000);
  private final Map<String, KeyedRateLimiter<String>> limiters = new ConcurrentHashMap<>();
  private final AtomicInteger built = new AtomicInteger();

  /** New rules over the limiters of the rules before them, as a reload that keeps them makes. */
  private EnforcementCore<ReactiveKeySource> reloaded() {
    built.incrementAndGet();
    RateLimiterFactory keeping =
        (name, limits, countRefused) ->
            limiters.computeIfAbsent(name, n -> memory.create(n, limits, countRefused));
    EnforcementCore.Builder<ReactiveKeySource> core =
        EnforcementCore.<ReactiveKeySource>builder()
            .clientKey(ReactiveKeySource::clientIp)
            .limiterFactory(keeping)
            .rateLimitHeaders(true);
    core.rule(EVERY, ReactiveKeySource::clientIp);
    core.rule(ITEMS, ReactiveKeySource::clientIp);
    return core.build();
  }

  private static ReactiveRateLimitFilter filterOver(
      Supplier<EnforcementCore<ReactiveKeySource>> rules) {
    return ReactiveFilters.filter(rules, ClientAddresses.direct(), null, 0);
  }

  private static MockServerWebExchange exchange() {
    return MockServerWebExchange.from(
        MockServerHttpRequest.get("/items/1")
            .remoteAddress(new InetSocketAddress("127.0.0.1", 40_000)));
  }

  /** Runs {@code outer}, then {@code inner} on the same exchange, then a handler that answers. */
  private static int status(
      ServerWebExchange exchange, ReactiveRateLimitFilter outer, ReactiveRateLimitFilter inner) {
    outer.filter(exchange, first -> inner.filter(first, second -> Mono.empty())).block();
    HttpStatusCode status = exchange.getResponse().getStatusCode();
    return status == null ? 200 : status.value();
  }

  @Test
  void filterRunTwice_rulesReplacedBeforeEachPass_countsTheExchangeOnceByEachRule() {
    Supplier<EnforcementCore<ReactiveKeySource>> rules = this::reloaded;
    ReactiveRateLimitFilter filter = filterOver(rules);

    MockServerWebExchange first = exchange();
    assertThat(status(first, filter, filter)).isEqualTo(200);
    assertThat(first.getResponse().getHeaders().getFirst("RateLimit"))
        .as("each rule counted the exchange once, under the rules it started with")
        .isEqualTo("\"every\";r=2;t=60, \"items\";r=2;t=60");
    int granted = 1;
    for (int i = 0; i < 3; i++) {
      granted += status(exchange(), filter, filter) == 200 ? 1 : 0;
    }
    assertThat(granted).as("rules of 3 per minute grant 3 exchanges").isEqualTo(3);
    assertThat(built).as("the rules were asked once per exchange").hasValue(4);
  }

  @Test
  void twoFiltersOverOneSource_rulesReplacedBeforeEachPass_countTheExchangeOnceByEachRule() {
    Supplier<EnforcementCore<ReactiveKeySource>> rules = this::reloaded;
    ReactiveRateLimitFilter outer = filterOver(rules);
    ReactiveRateLimitFilter inner = filterOver(rules);

    int granted = 0;
    for (int i = 0; i < 4; i++) {
      granted += status(exchange(), outer, inner) == 200 ? 1 : 0;
    }
    assertThat(granted).as("rules of 3 per minute grant 3 exchanges").isEqualTo(3);
  }
}
