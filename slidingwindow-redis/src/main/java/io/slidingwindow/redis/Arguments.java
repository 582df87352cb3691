package io.slidingwindow.redis;

import io.slidingwindow.Ticker;
import java.time.Duration;

/** Checks of builder arguments that the Redis limiter and counters share. */
final class Arguments {

  /** The longest command timeout accepted. */
  static final Duration MAX_COMMAND_TIMEOUT = Duration.ofHours(1);

  private Arguments() {}

  /**
   * Returns {@code ticker}.
   *
   * @throws IllegalArgumentException if it is null
   */
  static Ticker ticker(Ticker ticker) {
    if (ticker == null) {
      throw new IllegalArgumentException("ticker must not be null");
    }
    return ticker;
  }

  /**
   * Returns {@code commandTimeout}.
   *
   * @throws IllegalArgumentException if it is null, not positive or longer than one hour
   */
  static Duration commandTimeout(Duration commandTimeout) {
    if (commandTimeout == null
        || commandTimeout.isNegative()
        || commandTimeout.isZero()
        || commandTimeout.compareTo(MAX_COMMAND_TIMEOUT) > 0) {
      throw new IllegalArgumentException(
          "commandTimeout must be positive and at most one hour, was " + commandTimeout);
    }
    return commandTimeout;
  }
}
