/**
 * What the project's tests share: a clock tests move ({@link io.slidingwindow.testkit.FakeTicker}),
 * the brute-force oracle ({@link io.slidingwindow.testkit.SlidingLogOracle}), schedules to replay
 * ({@link io.slidingwindow.testkit.Schedule}), the conformance kit every limiter passes ({@link
 * io.slidingwindow.testkit.RateLimiterConformance}), threads that call together ({@link
 * io.slidingwindow.testkit.CallerThreads}) and a limiter that fails on purpose ({@link
 * io.slidingwindow.testkit.FailingLimiter}). For tests only.
 */
package io.slidingwindow.testkit;
