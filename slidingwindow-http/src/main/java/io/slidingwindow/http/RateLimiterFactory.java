package io.slidingwindow.http;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.PlanResolver;
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
   * Returns a keyed limiter whose keys get their plan's limits, as {@code plans} says, and {@code
   * limits} when on no plan (see {@link KeyedRateLimiter.Builder#build(PlanResolver)}). The
   * resolver gets each key as the limiter counts it. By default, a backend that has not learned
   * plans: the call without plans if {@code plans} is null, else a refusal.
   *
   * @param plans the resolver, or null for none
   * @throws IllegalArgumentException if the limits cannot be enforced by this backend
   * @throws UnsupportedOperationException if {@code plans} is not null and this backend cannot give
   *     keys their plan's limits, naming the backend and the rule
   */
  default KeyedRateLimiter<String> create(
      String ruleName,
      List<Limit> limits,
      boolean countRefusedAttempts,
      PlanResolver<String> plans) {
    if (plans == null) {
      return create(ruleName, limits, countRefusedAttempts);
    }
    throw new UnsupportedOperationException(
        "the rate limiter backend " + this + " cannot give keys plans (rule " + ruleName + ")");
  }

  /**
   * Lets go of {@code limiter}, which this factory created and which is now out of service (a
   * reload of the rules replaced or removed its rule). A factory that keeps hold of the limiters it
   * creates, to clean or report on them, drops it here, so that reloads do not hold old limiters
   * for good; by default this does nothing.
   */
  default void release(KeyedRateLimiter<String> limiter) {}

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
    return new RateLimiterFactory() {
      @Override
      public KeyedRateLimiter<String> create(
          String ruleName, List<Limit> limits, boolean countRefused) {
        return create(ruleName, limits, countRefused, null);
      }

      @Override
      public KeyedRateLimiter<String> create(
          String ruleName, List<Limit> limits, boolean countRefused, PlanResolver<String> plans) {
        return KeyedRateLimiter.builder()
            .limits(limits)
            .countRefusedAttempts(countRefused)
            .ticker(ticker)
            .maxKeys(maxKeysPerRule)
            .maxKeysPerGroup(maxKeysPerClient)
            .build(plans);
      }

      @Override
      public String toString() {
        return "RateLimiterFactory.inMemory";
      }
    };
  }

  /** The in-process backend on the system clock, with the default key bound. */
  static RateLimiterFactory inMemory() {
    return inMemory(Ticker.system(), KeyedRateLimiter.Builder.DEFAULT_MAX_KEYS);
  }
}
