package io.slidingwindow.testkit;

import io.slidingwindow.Limit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The brute-force reference for one limit: it keeps every recorded grant and answers questions
 * about them by scanning the whole log. Slow and obviously right, so that limiters can be checked
 * against it.
 *
 * <p>Times are plain nanosecond counts (say, offsets from a test's start); no wrap-around. A grant
 * at time {@code s} counts at time {@code t} in a window of length {@code w} when {@code t - w < s
 * <= t}: the window {@code (t - w, t]}. Not thread-safe.
 *
 * <p>Quota operations are modelled on the log itself: {@link #clear} forgets every grant (a reset),
 * {@link #removeNewest} takes back the newest permits (a refund), {@link #removeInBucket} permits
 * of grants in one bucket (a reservation's refund, which a limiter takes from the bucket that holds
 * the reservation's time). What the limiter must then keep within its limit is what stays in the
 * log.
 */
public final class SlidingLogOracle {

  private final long permits;
  private final long windowNanos;
  private final List<long[]> grants = new ArrayList<>();

  /** An empty log for a limit of {@code permits} per {@code windowNanos}. */
  public SlidingLogOracle(long permits, long windowNanos) {
    if (permits <= 0 || windowNanos <= 0) {
      throw new IllegalArgumentException(
          "permits and windowNanos must be positive, were " + permits + " and " + windowNanos);
    }
    this.permits = permits;
    this.windowNanos = windowNanos;
  }

  /** An empty log for {@code limit}, ignoring its precision. */
  public static SlidingLogOracle of(Limit limit) {
    return new SlidingLogOracle(limit.permits(), limit.windowNanos());
  }

  /** The limit's permits. */
  public long permits() {
    return permits;
  }

  /** The limit's window in nanoseconds. */
  public long windowNanos() {
    return windowNanos;
  }

  /** Records {@code permits} granted at time {@code time}. */
  public void record(long time, long permits) {
    grants.add(new long[] {time, permits});
  }

  /** Forgets every grant, as a reset does. */
  public void clear() {
    grants.clear();
  }

  /**
   * Takes back up to {@code permits} of the newest permits, latest time first (of grants at the
   * same time, the one recorded last first), as a refund does; returns how many were taken back.
   */
  public long removeNewest(long permits) {
    long left = permits;
    while (left > 0 && !grants.isEmpty()) {
      int newest = 0;
      for (int i = 1; i < grants.size(); i++) {
        if (grants.get(i)[0] >= grants.get(newest)[0]) {
          newest = i;
        }
      }
      left -= take(newest, left);
    }
    return permits - left;
  }

  /**
   * Takes back up to {@code permits} permits of grants in the bucket of width {@code precision}
   * that holds {@code time} (times counted from 0, as the limiter's origin; the newest grant
   * first), as the refund of a reservation made at {@code time} does; returns how many. With a
   * precision of one tick, that is the grants at exactly {@code time}.
   */
  public long removeInBucket(long time, long precision, long permits) {
    long bucket = Math.floorDiv(time, precision);
    long left = permits;
    while (left > 0) {
      int newest = -1;
      for (int i = 0; i < grants.size(); i++) {
        if (Math.floorDiv(grants.get(i)[0], precision) == bucket
            && (newest < 0 || grants.get(i)[0] >= grants.get(newest)[0])) {
          newest = i;
        }
      }
      if (newest < 0) {
        break;
      }
      left -= take(newest, left);
    }
    return permits - left;
  }

  /**
   * Takes up to {@code permits} from grant {@code i}, dropping it when emptied; returns how many.
   */
  private long take(int i, long permits) {
    long[] grant = grants.get(i);
    long taken = Math.min(grant[1], permits);
    grant[1] -= taken;
    if (grant[1] == 0) {
      grants.remove(i);
    }
    return taken;
  }

  /** The grants, each as {@code {time, permits}}, in the order they were recorded; copies. */
  public List<long[]> grants() {
    List<long[]> copy = new ArrayList<>(grants.size());
    for (long[] g : grants) {
      copy.add(g.clone());
    }
    return copy;
  }

  /** The number of recorded grants (not permits). */
  public int size() {
    return grants.size();
  }

  /** The permits recorded in all. */
  public long total() {
    long total = 0;
    for (long[] g : grants) {
      total += g[1];
    }
    return total;
  }

  /** The permits recorded at times in {@code (now - window, now]}. */
  public long countAt(long now, long window) {
    long count = 0;
    for (long[] g : grants) {
      if (g[0] > now - window && g[0] <= now) {
        count += g[1];
      }
    }
    return count;
  }

  /** Whether an exact sliding log of this limit would grant {@code permits} at {@code now}. */
  public boolean wouldGrant(long now, long permits) {
    return wouldGrant(now, permits, windowNanos);
  }

  /** Whether an exact sliding log with window {@code window} would grant them. */
  public boolean wouldGrant(long now, long permits, long window) {
    return countAt(now, window) + permits <= this.permits;
  }

  /**
   * The earliest time {@code t >= now} at which an exact log would grant {@code permits} if nothing
   * more were recorded.
   */
  public long earliestGrant(long now, long permits) {
    long[][] sorted = sorted();
    long excess = countAt(now, windowNanos) + permits - this.permits;
    if (excess <= 0) {
      return now;
    }
    for (long[] g : sorted) {
      if (g[0] > now - windowNanos && g[0] <= now) {
        excess -= g[1];
        if (excess <= 0) {
          return g[0] + windowNanos; // that grant has left (t - w, t] at t = g + w
        }
      }
    }
    throw new IllegalStateException("permits " + permits + " exceed the limit " + this.permits);
  }

  /**
   * The earliest time {@code t >= now} at which no permit recorded so far counts any more: the
   * newest counted grant's time plus the window, or {@code now} when none counts.
   */
  public long emptyAt(long now) {
    long at = now;
    for (long[] g : grants) {
      if (g[0] > now - windowNanos && g[0] <= now) {
        at = Math.max(at, g[0] + windowNanos);
      }
    }
    return at;
  }

  /** The most permits recorded in any interval {@code [t, t + window)} of this limit's window. */
  public long maxInAnyWindow() {
    return maxInAnyWindow(windowNanos);
  }

  /**
   * The most permits recorded in any interval {@code [t, t + window)}. Some interval that attains
   * the maximum starts at a recorded grant, so only those are tried.
   */
  public long maxInAnyWindow(long window) {
    long[][] sorted = sorted();
    long max = 0;
    long inWindow = 0;
    int last = 0; // exclusive end of the grants in [sorted[first], sorted[first] + window)
    for (int first = 0; first < sorted.length; first++) {
      while (last < sorted.length && sorted[last][0] - sorted[first][0] < window) {
        inWindow += sorted[last][1];
        last++;
      }
      max = Math.max(max, inWindow);
      inWindow -= sorted[first][1];
    }
    return max;
  }

  private long[][] sorted() {
    long[][] sorted = grants.toArray(new long[0][]);
    Arrays.sort(sorted, (a, b) -> Long.compare(a[0], b[0]));
    return sorted;
  }

  @Override
  public String toString() {
    return "SlidingLogOracle["
        + permits
        + " per "
        + windowNanos
        + " ns, "
        + grants.size()
        + " grants]";
  }
}
