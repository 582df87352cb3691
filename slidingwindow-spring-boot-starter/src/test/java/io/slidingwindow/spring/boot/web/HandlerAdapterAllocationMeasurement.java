package io.slidingwindow.spring.boot.web;

import io.slidingwindow.Limit;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.webflux.ReactiveRateLimitFilter;
import io.slidingwindow.webflux.internal.RateLimitHandlerAdapter;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.web.reactive.HandlerAdapter;
import org.springframework.web.reactive.HandlerResult;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;

/**
 * MEASUREMENT HARNESS, not part of the build's tests (its name does not end in Test): prints the
 * bytes that {@link RateLimitHandlerAdapter} allocates per request on its way to the handler's own
 * adapter (a stub that answers at once), for an exchange the rate limit filter has already let
 * through: unchanged since, and with its path rewritten after the filter. Only the adapter's call
 * and the subscription to its result are measured, not the exchange or the filter. Figures vary
 * with the JVM and are never asserted. Run it alone:
 *
 * <pre>
 * ./mvnw -q -o -pl slidingwindow-spring-boot-starter -am test -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dtest=HandlerAdapterAllocationMeasurement -Djacoco.skip=true
 * </pre>
 */
class HandlerAdapterAllocationMeasurement {

  private static final int WARM_UP = 50_000;
  private static final int MEASURED = 200_000;

  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  /** Takes everything, keeps nothing: one instance serves every subscription. */
  private static final CoreSubscriber<HandlerResult> SINK =
      new CoreSubscriber<>() {
        @Override
        public void onSubscribe(Subscription s) {
          s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(HandlerResult result) {}

        @Override
        public void onError(Throwable error) {
          throw new IllegalStateException(error);
        }

        @Override
        public void onComplete() {}
      };

  @Test
  void measure() {
    ReactiveRateLimitFilter filter =
        ReactiveRateLimitFilter.builder()
            .rule(
                HttpRule.builder("items")
                    .path("/items/**")
                    .limit(Limit.of(Integer.MAX_VALUE, Duration.ofHours(1)))
                    .build())
            .limiterFactory(RateLimiterFactory.inMemory(new FakeTicker(), 1_000))
            .build();
    Object handler = new Object();
    HandlerAdapter handlers =
        new HandlerAdapter() {
          @Override
          public boolean supports(Object candidate) {
            return candidate == handler;
          }

          @Override
          public Mono<HandlerResult> handle(ServerWebExchange exchange, Object candidate) {
            return Mono.empty();
          }
        };
    RateLimitHandlerAdapter adapter =
        new RateLimitHandlerAdapter(() -> List.of(filter), () -> List.of(handlers));
    for (boolean rewritten : new boolean[] {false, true}) {
      measure(adapter, filter, handler, rewritten, WARM_UP);
      double bytes = measure(adapter, filter, handler, rewritten, MEASURED);
      System.out.printf(
          Locale.ROOT,
          "RateLimitHandlerAdapter, %s: %.1f bytes per request%n",
          rewritten ? "path rewritten after the filter" : "request unchanged since the filter",
          bytes);
    }
  }

  /** The mean bytes allocated by {@code adapter} per request, over {@code requests}. */
  private static double measure(
      RateLimitHandlerAdapter adapter,
      ReactiveRateLimitFilter filter,
      Object handler,
      boolean rewritten,
      int requests) {
    long allocated = 0;
    long overhead = 0;
    for (int i = 0; i < requests; i++) {
      ServerWebExchange exchange =
          MockServerWebExchange.from(
              MockServerHttpRequest.get("/items/" + (i % 100))
                  .remoteAddress(new InetSocketAddress("127.0.0.1", 40_000)));
      ServerWebExchange[] passed = new ServerWebExchange[1];
      filter
          .filter(
              exchange,
              let -> {
                passed[0] =
                    rewritten ? let.mutate().request(r -> r.path("/items/other")).build() : let;
                return Mono.empty();
              })
          .block();
      ServerWebExchange atHandler = passed[0];
      long start = THREADS.getCurrentThreadAllocatedBytes();
      long empty = THREADS.getCurrentThreadAllocatedBytes();
      adapter.handle(atHandler, handler).subscribe(SINK);
      long end = THREADS.getCurrentThreadAllocatedBytes();
      overhead += empty - start;
      allocated += end - empty;
    }
    return (allocated - overhead) / (double) requests;
  }
}
