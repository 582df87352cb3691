/**
 * Sliding-window rate limiting and windowed counting, in process: at most N permits in any interval
 * of length W.
 *
 * <p>Limits and limiters ({@link io.slidingwindow.Limit}, {@link io.slidingwindow.RateLimiter},
 * {@link io.slidingwindow.KeyedRateLimiter}, {@link io.slidingwindow.Decision}), rolling statistics
 * ({@link io.slidingwindow.RollingWindow}, {@link io.slidingwindow.RollingCounters}), the clock
 * ({@link io.slidingwindow.Ticker}) and the vocabulary every module shares: {@link
 * io.slidingwindow.FailurePolicy}, {@link io.slidingwindow.DurationText}, {@link
 * io.slidingwindow.LimiterKeys} and {@link io.slidingwindow.KeyOverflow}. Classes that are not
 * public here are implementation and may change; so may everything in {@code
 * io.slidingwindow.internal}.
 */
package io.slidingwindow;
