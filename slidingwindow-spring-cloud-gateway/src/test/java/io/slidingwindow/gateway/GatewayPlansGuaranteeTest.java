package io.slidingwindow.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.FailurePolicy;
import io.slidingwindow.Limit;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.testkit.SlidingLogOracle;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import reactor.core.scheduler.Schedulers;

/**
 * The window guarantee of each key's plan through the gateway's limiter: schedules of requests,
 * random and at the windows' edges, from a key on free, a key on pro and a key on no plan of one
 * route, checked against the brute-force log of the limit each key's plan gives it.
 */
class GatewayPlansGuaranteeTest {

  private static final Limit ROUTE = Limit.parse("2/1s");
  private static final Limit FREE = Limit.parse("3/1s");
  private static final Limit PRO = Limit.parse("5/1s");
  private static final List<String> KEYS =
      List.of("header:x-api-key:f", "header:x-api-key:p", "ip:192.0.2.7");
  private static final List<Limit> LIMITS = List.of(FREE, PRO, ROUTE);

  /**
   * One request of a schedule.
   *
   * @param gapNanos the time since the previous request
   * @param key which key sends it: 0 on free, 1 on pro, 2 on no plan
   */
  record Request(long gapNanos, int key) {}

  @Property(tries = 300)
  void requests_anySchedule_neverMoreThanThePlansLimitAndRefusedOnlyWhenTheLogWould(
      @ForAll("schedules") List<Request> schedule) {
    FakeTicker ticker = new FakeTicker();
    SlidingWindowRateLimiter limiter =
        SlidingWindowRateLimiter.builder()
            .factory(RateLimiterFactory.inMemory(ticker, 1000))
            .local(RateLimiterFactory.inMemory(ticker, 1000))
            .timeout(Duration.ofSeconds(1))
            .onFailure(FailurePolicy.REFUSE)
            .headers(false)
            .timer(Schedulers.immediate())
            .build();
    limiter
        .getConfig()
        .put(
            "api",
            new SlidingWindowRateLimiter.Config()
                .limit(ROUTE.permits(), ROUTE.window())
                .plan("free", FREE.permits(), FREE.window(), null)
                .plan("pro", PRO.permits(), PRO.window(), null)
                .planKeys("free", KEYS.get(0))
                .planKeys("pro", KEYS.get(1)));
    Map<Integer, SlidingLogOracle> oracles = new HashMap<>();
    for (Request request : schedule) {
      ticker.advance(request.gapNanos());
      long now = ticker.read();
      Limit limit = LIMITS.get(request.key());
      SlidingLogOracle oracle =
          oracles.computeIfAbsent(request.key(), k -> SlidingLogOracle.of(limit));
      boolean granted =
          limiter
              .isAllowed("api", KEYS.get(request.key()))
              .block(Duration.ofSeconds(5))
              .isAllowed();
      if (granted) {
        oracle.record(now, 1);
      } else {
        assertThat(oracle.wouldGrant(now, 1, limit.windowNanos() + limit.precisionNanos()))
            .as(
                "key %d refused at %d although a log over W + p grants: %s",
                request.key(), now, oracle)
            .isFalse();
      }
      assertThat(oracle.maxInAnyWindow())
          .as("key %d", request.key())
          .isLessThanOrEqualTo(limit.permits());
    }
  }

  @Provide
  Arbitrary<List<Request>> schedules() {
    long window = ROUTE.windowNanos();
    long precision = ROUTE.precisionNanos();
    Arbitrary<Long> gaps =
        Arbitraries.frequencyOf(
            Tuple.of(4, Arbitraries.longs().between(0, window / 5)),
            Tuple.of(
                2,
                Arbitraries.of(
                    0L,
                    1L,
                    precision - 1,
                    precision,
                    window - precision,
                    window - 1,
                    window,
                    window + 1)));
    Arbitrary<Request> requests =
        Combinators.combine(gaps, Arbitraries.integers().between(0, 2)).as(Request::new);
    return requests.list().ofMinSize(1).ofMaxSize(80);
  }
}
