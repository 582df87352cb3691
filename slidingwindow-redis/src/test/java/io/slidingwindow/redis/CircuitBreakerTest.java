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

  @Test
  void nanosUntilProbe_closedOrProbing_zero() {
    FakeTicker ticker = new FakeTicker(123);
    CircuitBreaker breaker = new CircuitBreaker(1, OPEN_NANOS, ticker);
    assertThat(breaker.nanosUntilProbe()).as("closed").isZero();
    assertThat(breaker.isOpen()).isFalse();
    breaker.onFailure();
    assertThat(breaker.isOpen()).isTrue();
    ticker.advance(OPEN_NANOS);
    assertThat(breaker.tryPass()).isTrue();
    assertThat(breaker.isOpen()).as("probing").isTrue();
    assertThat(breaker.nanosUntilProbe()).as("probing").isZero();
  }

  @Test
  void nanosUntilProbe_openLongerThanItsTime_zeroNotNegative() {
    FakeTicker ticker = new FakeTicker();
    CircuitBreaker breaker = new CircuitBreaker(1, OPEN_NANOS, ticker);
    breaker.onFailure();
    ticker.advance(3 * OPEN_NANOS);
    assertThat(breaker.nanosUntilProbe()).isZero();
  }

  @Test
  void onFailure_whileOpen_doesNotMoveTheOpeningTime() {
    FakeTicker ticker = new FakeTicker();
    CircuitBreaker breaker = new CircuitBreaker(2, OPEN_NANOS, ticker);
    breaker.onFailure();
    breaker.onFailure();
    ticker.advance(OPEN_NANOS / 2);
    breaker.onFailure(); // a call let through before it opened fails late
    breaker.onFailure();
    assertThat(breaker.nanosUntilProbe()).isEqualTo(OPEN_NANOS / 2);
    ticker.advance(OPEN_NANOS / 2);
    assertThat(breaker.tryPass()).isTrue();
  }

  @Test
  void onFailure_afterAnOpeningAndAClose_countsAgainFromZero() {
    FakeTicker ticker = new FakeTicker();
    CircuitBreaker breaker = new CircuitBreaker(2, OPEN_NANOS, ticker);
    breaker.onFailure();
    breaker.onFailure();
    ticker.advance(OPEN_NANOS);
    assertThat(breaker.tryPass()).isTrue();
    breaker.onSuccess();
    breaker.onFailure();
    assertThat(breaker.isOpen()).as("one failure of two").isFalse();
    breaker.onFailure();
    assertThat(breaker.isOpen()).isTrue();
  }
}
