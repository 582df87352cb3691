/**
 * What the project's tests share: a clock tests move ({@link io.slidingwindow.testkit.FakeTicker}),
 * the brute-force oracle ({@link io.slidingwindow.testkit.SlidingLogOracle}), schedules to replay
 * ({@link io.slidingwindow.testkit.Schedule}), the conformance kit every limiter passes ({@link
 * io.slidingwindow.testkit.RateLimiterConformance}) and every implementation of rolling counters
 * ({@link io.slidingwindow.testkit.RollingCountersConformance}), threads that call together ({@link
 * io.slidingwindow.testkit.CallerThreads}), a limiter that fails on purpose ({@link
 * io.slidingwindow.testkit.FailingLimiter}), one that records the keys it counts ({@link
 * io.slidingwindow.testkit.RecordingLimiter}) and the log records a test looks at ({@link
 * io.slidingwindow.testkit.LogCapture}). For tests only.
 *
 * <p>What is supported for an application's own tests: {@link io.slidingwindow.testkit.FakeTicker},
 * the oracles {@link io.slidingwindow.testkit.SlidingLogOracle} and {@link
 * io.slidingwindow.testkit.CalendarLogOracle}, {@link io.slidingwindow.testkit.Schedule}, and the
 * conformance base classes {@link io.slidingwindow.testkit.RateLimiterConformance}, {@link
 * io.slidingwindow.testkit.QuotaConformance}, {@link io.slidingwindow.testkit.PlanConformance},
 * {@link io.slidingwindow.testkit.CalendarQuotaConformance} and {@link
 * io.slidingwindow.testkit.RollingCountersConformance}. The rest is the project's own test
 * infrastructure and may change without notice in any release: {@link
 * io.slidingwindow.testkit.ForkBound}, {@link io.slidingwindow.testkit.CallerThreads}, {@link
 * io.slidingwindow.testkit.FailingLimiter}, {@link io.slidingwindow.testkit.RecordingLimiter},
 * {@link io.slidingwindow.testkit.LogCapture}, and the packages {@code browser}, {@code http} and
 * {@code redis}.
 */
package io.slidingwindow.testkit;
