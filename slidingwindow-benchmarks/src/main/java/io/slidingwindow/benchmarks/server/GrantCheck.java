package io.slidingwindow.benchmarks.server;

import io.slidingwindow.testkit.SlidingLogOracle;
import java.util.Arrays;

/**
 * BENCHMARK HARNESS support: checks, from the client's side, that the grants one descriptor value
 * received are consistent with the service's guarantee "at most N grants in any interval of length
 * W of the service's clock".
 *
 * <p>The service's decision instants are not visible. What the client knows of a grant is the
 * instant {@code a} just before it sent the call and the instant {@code r} its answer arrived; the
 * service decided at some {@code s} with {@code a <= s <= r}. Two checks follow, both necessary
 * conditions of the guarantee (a violation of either is a real violation; passing them does not
 * prove the guarantee, it only fails to refute it):
 *
 * <ul>
 *   <li><b>By response time</b>, with {@link SlidingLogOracle}: let {@code D} be the longest round
 *       trip {@code r - a} among the value's grants. Grants whose {@code r} fall in an interval
 *       {@code [t, t + L - D)} decided in {@code [t - D, t + L - D)}, an interval of length {@code
 *       L}, so there are at most N of them. Not checkable when {@code D >= L}.
 *   <li><b>By containment</b>, tighter, each grant with its own round trip: grants whose whole
 *       {@code [a, r]} lies in an interval {@code [t, t + L)} decided inside it, so there are at
 *       most N of them. The grants one interval of the first check counts all lie in {@code [t - D,
 *       t + L - D)}, so this maximum is never below the first's.
 * </ul>
 *
 * <p>{@code L} is the window minus a slack for clocks that run at slightly different rates: in
 * Redis mode the service's clock is Redis's {@code TIME} (the wall clock, which NTP may slew by up
 * to 0.05 %) while the client measures with {@code System.nanoTime}; a slack of a thousandth of the
 * window covers that and the microsecond rounding of {@code TIME}. Times are nanoseconds from any
 * common origin; each grant is one permit.
 */
final class GrantCheck {

  private GrantCheck() {}

  /**
   * What the checks found for one descriptor value.
   *
   * @param grants the grants checked
   * @param maxRoundTripNanos the longest round trip among them, {@code D}
   * @param maxByResponse the most grants by response time in any interval of length {@code L - D},
   *     or -1 when {@code D >= L}
   * @param maxContained the most grants contained in any interval of length {@code L}
   * @param permits N
   */
  record Result(
      int grants, long maxRoundTripNanos, long maxByResponse, long maxContained, long permits) {

    /** Whether either check saw more than N grants in one interval: a real violation. */
    boolean violated() {
      return maxByResponse > permits || maxContained > permits;
    }
  }

  /**
   * Checks one value's grants.
   *
   * @param permits N, positive
   * @param windowNanos W, positive
   * @param slackNanos subtracted from W to give L; zero or more and below W
   * @param sentAt each grant's send instant
   * @param receivedAt each grant's receive instant, at or after its send instant
   * @throws IllegalArgumentException for bad numbers or arrays of different lengths
   */
  static Result check(
      long permits, long windowNanos, long slackNanos, long[] sentAt, long[] receivedAt) {
    if (permits <= 0 || windowNanos <= 0) {
      throw new IllegalArgumentException(
          "permits and windowNanos must be positive, were " + permits + " and " + windowNanos);
    }
    if (slackNanos < 0 || slackNanos >= windowNanos) {
      throw new IllegalArgumentException(
          "slackNanos must be in [0, windowNanos), was " + slackNanos);
    }
    if (sentAt.length != receivedAt.length) {
      throw new IllegalArgumentException(
          "sentAt and receivedAt must have one entry per grant, had "
              + sentAt.length
              + " and "
              + receivedAt.length);
    }
    long checkedWindow = windowNanos - slackNanos;
    long maxRoundTrip = 0;
    for (int i = 0; i < sentAt.length; i++) {
      long roundTrip = receivedAt[i] - sentAt[i];
      if (roundTrip < 0) {
        throw new IllegalArgumentException(
            "grant " + i + " was received before it was sent: " + roundTrip + " ns");
      }
      maxRoundTrip = Math.max(maxRoundTrip, roundTrip);
    }
    long maxByResponse = -1;
    if (maxRoundTrip < checkedWindow) {
      SlidingLogOracle oracle = new SlidingLogOracle(permits, checkedWindow - maxRoundTrip);
      for (long r : receivedAt) {
        oracle.record(r, 1);
      }
      maxByResponse = oracle.maxInAnyWindow();
    }
    return new Result(
        sentAt.length,
        maxRoundTrip,
        maxByResponse,
        maxContained(sentAt, receivedAt, checkedWindow),
        permits);
  }

  /**
   * The most grants whose {@code [sent, received]} lies inside one interval {@code [t, t +
   * window)}. Some interval attaining it starts at a send instant, so only those are tried; for
   * each, the grants sent within the window after it are scanned: O(grants x grants per window).
   */
  static long maxContained(long[] sentAt, long[] receivedAt, long window) {
    int n = sentAt.length;
    long[][] byStart = new long[n][];
    for (int i = 0; i < n; i++) {
      byStart[i] = new long[] {sentAt[i], receivedAt[i]};
    }
    Arrays.sort(byStart, (x, y) -> Long.compare(x[0], y[0]));
    long max = 0;
    for (int first = 0; first < n; first++) {
      long t = byStart[first][0];
      long inside = 0;
      for (int j = first; j < n && byStart[j][0] - t < window; j++) {
        if (byStart[j][1] - t < window) {
          inside++;
        }
      }
      max = Math.max(max, inside);
    }
    return max;
  }
}
