package io.slidingwindow.spring.boot.internal;

import static io.slidingwindow.spring.boot.internal.PropertyChecks.bind;

import io.slidingwindow.Ticker;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.spring.boot.web.SlidingWindowHttpProperties;

/**
 * The starter's in-memory backend, free of any web stack's types: the backend of both web
 * configurations, and the local fallback of the Redis configuration's limiters (also in a reactive
 * gateway), and of {@code @RateLimit} on bean methods. Not an API: applications define a {@link
 * RateLimiterFactory} bean instead.
 */
public final class InMemoryBackend {

  private InMemoryBackend() {}

  /**
   * The in-memory backend of {@link #factory}, each limiter cleaned of expired keys every {@code
   * slidingwindow.http.cleanup-interval} on a daemon thread that stops when the factory is closed
   * (with the context, when it is a bean).
   *
   * @throws IllegalArgumentException naming the property if a value is out of range
   */
  public static RateLimiterFactory cleaning(SlidingWindowHttpProperties properties, Ticker ticker) {
    RateLimiterFactory inMemory = factory(properties, ticker);
    return bind(
        SlidingWindowHttpProperties.PREFIX + ".cleanup-interval",
        () -> CleaningRateLimiterFactory.every(properties.getCleanupInterval(), inMemory));
  }

  /**
   * The in-memory backend with {@code slidingwindow.http.max-keys-per-rule} and {@code
   * max-keys-per-client}.
   *
   * @throws IllegalArgumentException naming the property if a bound is out of range
   */
  public static RateLimiterFactory factory(SlidingWindowHttpProperties properties, Ticker ticker) {
    long perRule = properties.getMaxKeysPerRule();
    RateLimiterFactory factory =
        bind(
            SlidingWindowHttpProperties.PREFIX + ".max-keys-per-rule",
            () -> RateLimiterFactory.inMemory(ticker, perRule));
    Long perClient = properties.getMaxKeysPerClient();
    return perClient == null
        ? factory
        : bind(
            SlidingWindowHttpProperties.PREFIX + ".max-keys-per-client",
            () -> RateLimiterFactory.inMemory(ticker, perRule, perClient));
  }
}
