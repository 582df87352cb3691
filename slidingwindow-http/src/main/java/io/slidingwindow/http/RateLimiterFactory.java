package io.slidingwindow.http;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Ticker;
import java.util.List;

/**
 * Creates the keyed limiter behind each rule: the seam between HTTP and a storage backend.
 *
 * <p>The filter calls it once per rule when it is built, and then only uses the {@link
 * KeyedRateLimiter} it returned, so swapping the in-process backend for a shared one (Redis) needs
 * no change to the filter. A backend that keeps state outside the process should use {@code
 * ruleName} to keep rules apart.
 */
@FunctionalInterface
public interface RateLimiterFactory {

  /**
   * Returns a keyed limiter enforcing every one of {@code limits} for each key.
   *
   * @param ruleName the rule's name, unique among the rules of one filter
   * @param limits the rule's limits, at least one
   * @param countRefusedAttempts whether refused requests are counted too
   * @throws IllegalArgumentException if the limits cannot be enforced by this backend
   */
  KeyedRateLimiter<String> create(
      String ruleName, List<Limit> limits, boolean countRefusedAttempts);

  /**
   * The in-process backend: a {@link KeyedRateLimiter#builder()} limiter per rule, tracking at most
   * {@code maxKeysPerRule} keys, at most one hundredth of them from one client (new keys beyond
   * either bound are refused until old ones expire; see {@link io.slidingwindow.KeyOverflow}).
   *
   * @throws IllegalArgumentException if {@code ticker} is null or {@code maxKeysPerRule} is not
   *     positive or exceeds {@link Integer#MAX_VALUE}
   */
  static RateLimiterFactory inMemory(Ticker ticker, long maxKeysPerRule) {
    return inMemory(ticker, maxKeysPerRule, Math.max(1, maxKeysPerRule / 100));
  }

  /**
   * The in-process backend: a {@link KeyedRateLimiter#builder()} limiter per rule, tracking at most
   * {@code maxKeysPerRule} keys, at most {@code maxKeysPerClient} of them from one client besides
   * the client's own address key (new keys beyond either bound are refused until old ones expire;
   * see {@link io.slidingwindow.KeyOverflow}).
   *
   * @throws IllegalArgumentException if {@code ticker} is null, or a bound is not positive or
   *     exceeds {@link Integer#MAX_VALUE}
   */
  static RateLimiterFactory inMemory(Ticker ticker, long maxKeysPerRule, long maxKeysPerClient) {
    if (ticker == null) {
      throw new IllegalArgumentException("ticker must not be null");
    }
    KeyedRateLimiter.builder().maxKeys(maxKeysPerRule); // validates
    KeyedRateLimiter.builder().maxKeysPerGroup(maxKeysPerClient);
    return (ruleName, limits, countRefused) ->
        KeyedRateLimiter.builder()
            .limits(limits)
            .countRefusedAttempts(countRefused)
            .ticker(ticker)
            .maxKeys(maxKeysPerRule)
            .maxKeysPerGroup(maxKeysPerClient)
            .build();
  }

  /** The in-process backend on the system clock, with the default key bound. */
  static RateLimiterFactory inMemory() {
    return inMemory(Ticker.system(), KeyedRateLimiter.Builder.DEFAULT_MAX_KEYS);
  }
}
