package io.slidingwindow.spring;

import static io.slidingwindow.spring.PropertyChecks.bind;

import io.slidingwindow.Ticker;
import io.slidingwindow.http.RateLimiterFactory;

/**
 * The starter's in-memory backend, free of any web stack's types, so that configurations outside
 * servlet applications (the Redis backend's local fallback in a reactive gateway) can build it.
 */
final class InMemoryBackend {

  private InMemoryBackend() {}

  /**
   * The in-memory backend with {@code slidingwindow.http.max-keys-per-rule} and {@code
   * max-keys-per-client}.
   *
   * @throws IllegalArgumentException naming the property if a bound is out of range
   */
  static RateLimiterFactory factory(SlidingWindowHttpProperties properties, Ticker ticker) {
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
