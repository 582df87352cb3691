package io.slidingwindow.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.slidingwindow.Limit;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.http.StatusRanges;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.testkit.RefundFailingLimiter;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A rule that counts only failures gives the permit of a request that succeeded back; when the
 * backend's refund throws an {@link Error} and the chain failed too, the chain's failure is what
 * the filter throws on, the refund's Error kept beside it.
 */
class SettleFailureTest {

  private final FakeTicker ticker = new FakeTicker();

  /** The in-memory backend, except that every refund throws {@code error}. */
  private RateLimiterFactory refundThrowing(Error error) {
    RateLimiterFactory memory = RateLimiterFactory.inMemory(ticker, 100);
    return (name, limits, countRefused) ->
        new RefundFailingLimiter(
            memory.create(name, limits, countRefused),
            error,
            RefundFailingLimiter.Async.FAILED_STAGE);
  }

  @Test
  void chainFails_andTheRefundThrowsAnError_theChainsFailureGoesOn_withTheErrorSuppressed() {
    NoClassDefFoundError refundError = new NoClassDefFoundError("the backend's client");
    IllegalStateException handlerFailure = new IllegalStateException("the handler failed");
    RateLimitFilter filter =
        new RateLimitFilter(
            RateLimitEnforcer.builder()
                .rule(
                    HttpRule.builder("failures")
                        .limit(Limit.exact(3, Duration.ofMinutes(1)))
                        // the handler's failure counts as 500, outside: its permit is given back
                        .countStatuses(StatusRanges.parse("400-499"))
                        .build())
                .limiterFactory(refundThrowing(refundError))
                .build());
    FakeHttp.Response response = new FakeHttp.Response();

    Throwable thrown =
        catchThrowable(
            () ->
                filter.doFilter(
                    FakeHttp.request("192.0.2.1", "/items/1"),
                    response.servlet,
                    (request, answer) -> {
                      throw handlerFailure;
                    }));

    assertThat(thrown).as("what the filter threw on").isSameAs(handlerFailure);
    assertThat(thrown.getSuppressed()).containsExactly(refundError);
  }
}
