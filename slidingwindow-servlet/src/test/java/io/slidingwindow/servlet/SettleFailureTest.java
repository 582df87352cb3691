package io.slidingwindow.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Reservation;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.http.StatusRanges;
import io.slidingwindow.testkit.FakeTicker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
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
    return (name, limits, countRefused) -> {
      KeyedRateLimiter<String> windows = memory.create(name, limits, countRefused);
      return new KeyedRateLimiter<>() {
        @Override
        public boolean tryAcquire(String key, long permits) {
          return windows.tryAcquire(key, permits);
        }

        @Override
        public Decision decide(String key, long permits) {
          return windows.decide(key, permits);
        }

        @Override
        public List<Limit> limits() {
          return windows.limits();
        }

        @Override
        public Reservation reserve(String key, String group, long permits) {
          Reservation reserved = windows.reserve(key, group, permits);
          return !reserved.isRefundable()
              ? reserved
              : Reservation.refundable(
                  reserved.decision(),
                  new Reservation.Refunder() {
                    @Override
                    public void refund() {
                      throw error;
                    }

                    @Override
                    public CompletionStage<Void> refundAsync() {
                      return CompletableFuture.failedFuture(error);
                    }
                  });
        }
      };
    };
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
