package io.slidingwindow.servlet;

import io.slidingwindow.Decision;

/**
 * Told of every decision the filter makes, for metrics and logs. Methods run on the request thread
 * before the response is written, so they must be quick and thread-safe; an exception they throw is
 * logged and ignored.
 */
public interface RateLimitListener {

  /** A listener that does nothing. */
  RateLimitListener NONE = new RateLimitListener() {};

  /** {@code rule} granted a request. */
  default void onAllowed(RateLimitRule rule, Decision decision) {}

  /**
   * {@code rule} refused a request; when {@code dryRun} the request went on all the same.
   */
  default void onRefused(RateLimitRule rule, Decision decision, boolean dryRun) {}

  /**
   * The limiter of {@code rule} failed (a backend outage); the request went on unlimited by it.
   */
  default void onError(RateLimitRule rule, RuntimeException error) {}
}
