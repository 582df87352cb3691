package io.slidingwindow.redis;

import io.slidingwindow.Ticker;
import io.slidingwindow.internal.Checks;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * What the Redis builders share: the backend, and the key prefix, client clock and command timeout
 * with their checks and defaults. Each setting may be set once: setting it again to a different
 * value throws {@link IllegalStateException} instead of silently overwriting it (setting it again
 * to an equal value is fine). Not thread-safe.
 *
 * @param <B> the concrete builder, returned by every setter
 */
abstract class RedisBuilder<B extends RedisBuilder<B>> {

  final RedisBackend backend;
  String keyPrefix = RedisRateLimiter.DEFAULT_KEY_PREFIX;

  /** Null unless set: then the server's {@code TIME} is the clock. */
  Ticker clientTime;

  Duration commandTimeout = RedisRateLimiter.DEFAULT_COMMAND_TIMEOUT;

  /** What each setter was given, by setter name. */
  private final Map<String, Object> given = new HashMap<>();

  RedisBuilder(RedisBackend backend) {
    this.backend = backend;
  }

  @SuppressWarnings("unchecked")
  final B self() {
    return (B) this;
  }

  /**
   * Records {@code value} for {@code setter} and returns it.
   *
   * @throws IllegalStateException if {@code setter} was already given a different value
   */
  final <T> T once(String setter, T value) {
    Checks.setOnce(given.get(setter), value, setter);
    given.put(setter, value);
    return value;
  }

  /**
   * Sets the first part of every key, {@value RedisRateLimiter#DEFAULT_KEY_PREFIX} by default.
   *
   * @throws IllegalArgumentException if {@code keyPrefix} is null, empty, or holds a brace or an
   *     unpaired surrogate
   * @throws IllegalStateException if another prefix was set
   */
  public B keyPrefix(String keyPrefix) {
    this.keyPrefix = once("keyPrefix", Keys.checkPrefix(keyPrefix));
    return self();
  }

  /**
   * Uses {@code ticker}, truncated to microseconds since its first reading, instead of the server's
   * {@code TIME}. Instances with different tickers do not agree on time: use this for a single
   * instance and for tests only.
   *
   * @throws IllegalArgumentException if {@code ticker} is null
   * @throws IllegalStateException if another ticker was set
   */
  public B clientTime(Ticker ticker) {
    this.clientTime = once("clientTime", Checks.requireNonNull(ticker, "ticker"));
    return self();
  }

  /**
   * Sets how long a call waits for Redis before it fails (for a limiter, before the failure policy
   * answers), {@code 50 ms} by default.
   *
   * @throws IllegalArgumentException if {@code commandTimeout} is null, not positive, or longer
   *     than one hour
   * @throws IllegalStateException if another timeout was set
   */
  public B commandTimeout(Duration commandTimeout) {
    this.commandTimeout =
        once(
            "commandTimeout",
            Checks.requirePositiveAtMost(
                commandTimeout, RedisBackend.MAX_COMMAND_TIMEOUT, "commandTimeout"));
    return self();
  }
}
