package io.slidingwindow.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Reservation;
import io.slidingwindow.testkit.FakeTicker;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

/**
 * A settlement whose first rule's backend throws an {@link Error} at once when asked to give its
 * permits back: every other rule's permits still come back, then the Error is thrown on.
 */
class SettlementTest {

  private final ListenerCalls calls = new ListenerCalls(new RateLimitListener() {});
  private final NoClassDefFoundError backendFailed =
      new NoClassDefFoundError("the backend's client");

  /** One call a minute, counted only when answered 4xx or 5xx. */
  private static HttpRule failures(String name) {
    return HttpRule.builder(name)
        .limit(Limit.parse("1/1m"))
        .countStatuses(StatusRanges.parse("400-599"))
        .build();
  }

  private final HttpRule first = failures("first");
  private final HttpRule second = failures("second");
  private final KeyedRateLimiter<String> secondWindows =
      RateLimiterFactory.inMemory(new FakeTicker(), 10).create("second", second.limits(), false);

  /** The first rule's reservation, whose refunds throw; then the second's, in memory. */
  private Settlement firstThrowingThenInMemory() {
    Reservation throwing =
        Reservation.refundable(
            secondWindows.decide("other", 1),
            new Reservation.Refunder() {
              @Override
              public void refund() {
                throw backendFailed;
              }

              @Override
              public CompletionStage<Void> refundAsync() {
                throw backendFailed;
              }
            });
    Reservation reserved = secondWindows.reserve("ann", "ann", 1);
    assertThat(secondWindows.tryAcquire("ann", 1)).as("the second rule's window full").isFalse();
    return Settlement.of(
        List.of(
            new Settlement.Pending(first, throwing, calls),
            new Settlement.Pending(second, reserved, calls)));
  }

  @Test
  void settleAsync_aBackendThrowingAnError_theOtherRulesStillGiveTheirPermitsBack() {
    Settlement settlement = firstThrowingThenInMemory();

    assertThatThrownBy(() -> settlement.settleAsync(200)).isSameAs(backendFailed);
    assertThat(secondWindows.tryAcquire("ann", 1))
        .as("the second rule's permit given back")
        .isTrue();
  }

  @Test
  void settle_aBackendThrowingAnError_theOtherRulesStillGiveTheirPermitsBack() {
    Settlement settlement = firstThrowingThenInMemory();

    assertThatThrownBy(() -> settlement.settle(200)).isSameAs(backendFailed);
    assertThat(secondWindows.tryAcquire("ann", 1))
        .as("the second rule's permit given back")
        .isTrue();
  }
}
