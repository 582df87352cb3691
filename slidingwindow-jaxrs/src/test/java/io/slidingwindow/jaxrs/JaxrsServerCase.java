package io.slidingwindow.jaxrs;

import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.testkit.RecordingLimiter;
import java.util.Collection;
import org.junit.jupiter.api.AfterEach;

/**
 * What the tests that run the feature on a real server share: a fake ticker, the server a test
 * started (stopped after it), the feature counting in memory on that ticker, a backend on that
 * ticker that records the keys it counts, and plain GETs.
 */
abstract class JaxrsServerCase {

  final FakeTicker ticker = new FakeTicker();
  JaxrsServers.Running server;

  @AfterEach
  void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  /** A feature counting in memory on {@link #ticker}. */
  final RateLimitFeature feature() {
    return RateLimitFeature.builder()
        .limiterFactory(RateLimiterFactory.inMemory(ticker, 1_000))
        .build();
  }

  /** A feature counting in memory on {@link #ticker} that answers with rate-limit headers. */
  final RateLimitFeature featureWithHeaders() {
    return RateLimitFeature.builder()
        .limiterFactory(RateLimiterFactory.inMemory(ticker, 1_000))
        .rateLimitHeaders(true)
        .build();
  }

  /**
   * The in-memory backend on {@link #ticker}, 100,000 keys a rule, adding every key it is asked for
   * to {@code keys}.
   */
  final RateLimiterFactory recording(Collection<String> keys) {
    RateLimiterFactory memory = RateLimiterFactory.inMemory(ticker, 100_000);
    return (name, limits, countRefused) ->
        new RecordingLimiter(memory.create(name, limits, countRefused), keys);
  }

  /** The status of a GET of {@code path} on the running server. */
  final int status(String path) {
    return Http.get(server.uri(path)).statusCode();
  }
}
