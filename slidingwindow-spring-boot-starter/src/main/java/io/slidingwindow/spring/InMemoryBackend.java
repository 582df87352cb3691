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
   * The in-memory backend with {@code slidingwindow.http.max-keys-per-rule}.
   *
   * @throws IllegalArgumentException naming the property if the bound is out of range
   */
  static RateLimiterFactory factory(SlidingWindowHttpProperties properties, Ticker ticker) {
    return bind(
        SlidingWindowHttpProperties.PREFIX + ".max-keys-per-rule",
        () -> RateLimiterFactory.inMemory(ticker, properties.getMaxKeysPerRule()));
  }
}
