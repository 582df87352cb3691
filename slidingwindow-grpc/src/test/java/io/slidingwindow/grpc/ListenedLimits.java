package io.slidingwindow.grpc;

import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimitListener;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.testkit.FakeTicker;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The limiter's set-up the code-counting tests share: in-memory windows on a fake clock, and a
 * listener that keeps every error it is told of (a test expects none).
 */
final class ListenedLimits {

  final FakeTicker ticker = new FakeTicker();

  /** Each error the listener was told of, as "rule: error". */
  final List<String> errors = Collections.synchronizedList(new ArrayList<>());

  /** An interceptor's builder on these windows and this listener. */
  RateLimitServerInterceptor.Builder interceptor() {
    return RateLimitServerInterceptor.builder()
        .limiterFactory(RateLimiterFactory.inMemory(ticker, 1_000))
        .listener(
            new RateLimitListener() {
              @Override
              public void onError(HttpRule rule, RuntimeException error) {
                errors.add(rule.name() + ": " + error);
              }
            });
  }
}
