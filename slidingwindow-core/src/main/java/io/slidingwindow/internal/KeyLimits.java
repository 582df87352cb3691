package io.slidingwindow.internal;

import io.slidingwindow.Decision;
import io.slidingwindow.Limit;
import java.time.Duration;
import java.util.List;

/**
 * The limits of one key, checked and recorded together: a request is granted only if every limit
 * allows it, and then it is recorded in every limit; when refused attempts are counted it is
 * recorded either way.
 *
 * <p>Times are nanoseconds since the owner's origin. A time smaller than the latest one seen is
 * taken as that latest time (the clock went backwards: no time passed), so the windows only ever
 * see non-decreasing times.
 *
 * <p>Not thread-safe: the owner holds a lock around every call.
 */
public final class KeyLimits implements KeyTable.State {

  private final Limit[] limits;
  private final LimitRuns[] windows;
  private final boolean countRefused;
  private long latest;

  /**
   * Creates the empty state of {@code limits}, whose clock starts at {@code start}: earlier times
   * are taken as {@code start}.
   *
   * @throws IllegalArgumentException if a limit's runs would not fit in memory
   */
  public KeyLimits(List<Limit> limits, boolean countRefused, long start) {
    this.limits = limits.toArray(new Limit[0]);
    this.windows = new LimitRuns[this.limits.length];
    for (int i = 0; i < windows.length; i++) {
      Limit limit = this.limits[i];
      windows[i] =
          new LimitRuns(limit.permits(), limit.windowNanos(), limit.precisionNanos(), countRefused);
    }
    this.countRefused = countRefused;
    this.latest = start;
  }

  /** The latest time seen. */
  @Override
  public long latest() {
    return latest;
  }

  private long advance(long now) {
    if (now > latest) {
      latest = now;
    }
    LimitRuns[] w = windows;
    for (int i = 0; i < w.length; i++) {
      w[i].expire(latest);
    }
    return latest;
  }

  private boolean allows(long permits) {
    LimitRuns[] w = windows;
    for (int i = 0; i < w.length; i++) {
      if (!w[i].allows(permits)) {
        return false;
      }
    }
    return true;
  }

  private void record(long now, long permits) {
    LimitRuns[] w = windows;
    for (int i = 0; i < w.length; i++) {
      w[i].record(now, permits);
    }
  }

  /** Grants and records {@code permits} at time {@code now} if every limit allows them. */
  public boolean tryAcquire(long now, long permits) {
    long t = advance(now);
    boolean granted = allows(permits);
    if (granted || countRefused) {
      record(t, permits);
    }
    return granted;
  }

  /**
   * As {@link #tryAcquire}, but returns 0 when granted and otherwise the nanoseconds until the
   * same request would be granted if nothing else arrived (always positive).
   */
  public long tryAcquireOrRetryNanos(long now, long permits) {
    long t = advance(now);
    if (allows(permits)) {
      record(t, permits);
      return 0;
    }
    if (countRefused) {
      record(t, permits);
    }
    long wait = 0;
    for (LimitRuns w : windows) {
      wait = Math.max(wait, w.retryAfterNanos(t, permits));
    }
    return wait;
  }

  /** As {@link #tryAcquire}, with the figures of the binding limit. */
  public Decision decide(long now, long permits) {
    long t = advance(now);
    boolean granted = allows(permits);
    if (granted || countRefused) {
      record(t, permits);
    }
    int binding = 0;
    long retryAfter = 0;
    if (granted) {
      long least = Long.MAX_VALUE;
      for (int i = 0; i < windows.length; i++) {
        long remaining = windows[i].remaining();
        if (remaining < least) {
          least = remaining;
          binding = i;
        }
      }
    } else {
      for (int i = 0; i < windows.length; i++) {
        long wait = windows[i].retryAfterNanos(t, permits);
        if (wait > retryAfter) {
          retryAfter = wait;
          binding = i;
        }
      }
    }
    LimitRuns w = windows[binding];
    Limit limit = limits[binding];
    Duration resetAfter = Duration.ofNanos(w.resetAfterNanos(t));
    return granted
        ? Decision.granted(w.remaining(), resetAfter, limit)
        : Decision.refused(w.remaining(), Duration.ofNanos(retryAfter), resetAfter, limit);
  }

  /**
   * A time before which every request is refused, or {@link Long#MIN_VALUE} if none is known: when
   * some limit has no permit left, nothing but time can free one, and not before its oldest run
   * leaves. Valid after an operation at the latest time; for lock-free refusals by the owner.
   */
  public long refusingUntil() {
    long until = Long.MIN_VALUE;
    for (LimitRuns w : windows) {
      if (w.remaining() == 0) {
        until = Math.max(until, w.nextExpiry());
      }
    }
    return until;
  }

  /** Whether no limit counts any permit at time {@code now}. */
  @Override
  public boolean isEmpty(long now) {
    advance(now);
    for (LimitRuns w : windows) {
      if (!w.isEmpty()) {
        return false;
      }
    }
    return true;
  }

  /** The runs stored for each limit, in the order of the limits. */
  public int[] storedRuns() {
    int[] runs = new int[windows.length];
    for (int i = 0; i < runs.length; i++) {
      runs[i] = windows[i].storedRuns();
    }
    return runs;
  }
}
