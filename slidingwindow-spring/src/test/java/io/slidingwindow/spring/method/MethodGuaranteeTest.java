package io.slidingwindow.spring.method;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Limit;
import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.spring.RateLimitExceededException;
import io.slidingwindow.testkit.SlidingLogOracle;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterProperty;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import reactor.core.publisher.Mono;

/**
 * The window guarantee through a bean method: schedules of calls, random and at the window's edges,
 * to a synchronous and a reactive {@code @RateLimit} method, checked against the brute-force log.
 */
class MethodGuaranteeTest {

  private static final Limit LIMIT = Limit.parse("3/1s");

  /** A bean limited at 3 per second a key, one method of each way of deciding. */
  public static class Meter {
    @RateLimit(limits = "3/1s", key = "#key")
    public String plain(String key) {
      return key;
    }

    @RateLimit(limits = "3/1s", key = "#key")
    public Mono<String> reactive(String key) {
      return Mono.just(key);
    }
  }

  /**
   * One call of a schedule.
   *
   * @param gapNanos the time since the previous call
   * @param key which of a few keys it uses
   * @param reactive whether it calls the reactive method
   */
  record Call(long gapNanos, int key, boolean reactive) {}

  private final MethodContexts contexts = new MethodContexts();
  private final AnnotationConfigApplicationContext context = contexts.start(Meter.class);
  private final Meter meter = context.getBean(Meter.class);
  private final AtomicLong tries = new AtomicLong();

  @AfterProperty
  void close() {
    context.close();
  }

  @Property(tries = 300)
  void calls_anySchedule_neverMoreThanTheLimitInAnyWindowAndRefusedOnlyWhenTheLogWould(
      @ForAll("schedules") List<Call> schedule) {
    String tryKey = "try" + tries.incrementAndGet() + "-";
    Map<String, SlidingLogOracle> oracles = new HashMap<>();
    long window = LIMIT.windowNanos();
    long precision = LIMIT.precisionNanos();
    for (Call call : schedule) {
      contexts.ticker.advance(call.gapNanos());
      long now = contexts.ticker.read();
      String key = tryKey + call.key();
      SlidingLogOracle oracle =
          oracles.computeIfAbsent(key + call.reactive(), k -> SlidingLogOracle.of(LIMIT));
      boolean granted = call.reactive() ? reactive(key) : plain(key);
      if (granted) {
        oracle.record(now, 1);
      } else {
        assertThat(oracle.wouldGrant(now, 1, window + precision))
            .as("refused at %d although a log over W + p grants: %s", now, oracle)
            .isFalse();
      }
      assertThat(oracle.maxInAnyWindow()).isLessThanOrEqualTo(LIMIT.permits());
    }
  }

  private boolean plain(String key) {
    try {
      return meter.plain(key).equals(key);
    } catch (RateLimitExceededException refused) {
      return false;
    }
  }

  private boolean reactive(String key) {
    return Boolean.TRUE.equals(
        meter
            .reactive(key)
            .map(key::equals)
            .onErrorResume(RateLimitExceededException.class, e -> Mono.just(false))
            .block());
  }

  @Provide
  Arbitrary<List<Call>> schedules() {
    long window = LIMIT.windowNanos();
    long precision = LIMIT.precisionNanos();
    Arbitrary<Long> gaps =
        Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(4, Arbitraries.longs().between(0, window / 3)),
            net.jqwik.api.Tuple.of(
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
    Arbitrary<Call> calls =
        Combinators.combine(gaps, Arbitraries.integers().between(0, 2), Arbitraries.of(true, false))
            .as(Call::new);
    return calls.list().ofMinSize(1).ofMaxSize(60);
  }
}
