package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.FakeTicker;
import org.junit.jupiter.api.Test;

class CircuitBreakerTest {

  private static final long OPEN_NANOS = 1_000_000_000L;

  @Test
  void tryPass_fewerFailuresThanTheThreshold_staysClosed() {
    CircuitBreaker breaker = new CircuitBreaker(3, OPEN_NANOS, new FakeTicker());
    breaker.onFailure();
    breaker.onFailure();
    breaker.onSuccess();
    breaker.onFailure();
    breaker.onFailure();
    assertThat(breaker.tryPass()).isTrue();
    assertThat(breaker.isOpen()).isFalse();
  }

  @Test
  void tryPass_thresholdReached_turnsCallsAwayUntilTheOpenTimeHasPassed() {
    FakeTicker ticker = new FakeTicker(Long.MAX_VALUE - 10); // wraps while open
    CircuitBreaker breaker = new CircuitBreaker(3, OPEN_NANOS, ticker);
    for (int i = 0; i < 3; i++) {
      assertThat(breaker.tryPass()).isTrue();
      breaker.onFailure();
    }
    assertThat(breaker.tryPass()).isFalse();
    assertThat(breaker.nanosUntilProbe()).isEqualTo(OPEN_NANOS);
    ticker.advance(OPEN_NANOS - 1);
    assertThat(breaker.tryPass()).as("one nanosecond early").isFalse();
    assertThat(breaker.nanosUntilProbe()).isEqualTo(1);
    ticker.advance(1);
    assertThat(breaker.tryPass()).as("the probe").isTrue();
    assertThat(breaker.tryPass()).as("a second caller while probing").isFalse();
  }

  @Test
  void probe_failure_reopensForAnotherPeriod() {
    FakeTicker ticker = new FakeTicker(-5);
    CircuitBreaker breaker = new CircuitBreaker(1, OPEN_NANOS, ticker);
    breaker.onFailure();
    ticker.advance(OPEN_NANOS);
    assertThat(breaker.tryPass()).isTrue();
    breaker.onFailure();
    assertThat(breaker.tryPass()).isFalse();
    ticker.advance(OPEN_NANOS - 1);
    assertThat(breaker.tryPass()).isFalse();
    ticker.advance(1);
    assertThat(breaker.tryPass()).isTrue();
  }

  @Test
  void probe_success_closes() {
    FakeTicker ticker = new FakeTicker();
    CircuitBreaker breaker = new CircuitBreaker(2, OPEN_NANOS, ticker);
    breaker.onFailure();
    breaker.onFailure();
    ticker.advance(OPEN_NANOS);
    assertThat(breaker.tryPass()).isTrue();
    breaker.onSuccess();
    assertThat(breaker.isOpen()).isFalse();
    assertThat(breaker.tryPass()).isTrue();
    assertThat(breaker.tryPass()).isTrue();
    breaker.onFailure();
    assertThat(breaker.tryPass()).as("the failure count restarted at the close").isTrue();
  }
}
