package io.slidingwindow.internal;

import io.slidingwindow.Decision;
import io.slidingwindow.Limit;
import java.time.Duration;
import java.util.List;
import java.util.function.LongFunction;

/**
 * The limits of one key, checked and recorded together: a request is granted only if every limit
 * allows it, and then it is recorded in every limit; when refused attempts are counted it is
 * recorded either way.
 *
 * <p>Times are nanoseconds since the owner's origin. A time smaller than the latest one seen is
 * taken as that latest time (the clock went backwards: no time passed), so the windows only ever
 * see non-decreasing times.
 *
 * <p>Memory layout. A key with one limit, the common case, is a single {@link LimitRuns} object
 * (this class's fields are its latest time and the table's entry flags) plus its ring; a key with
 * several limits is one {@link Several} holding a {@link LimitRuns} per limit, whose own latest
 * time and flags go unused. The limits' figures are shared through {@link LimitRuns.Config}, never
 * copied per key. Build states with {@link #factory}.
 *
 * <p>Not thread-safe: the owner holds a lock around every call.
 */
public abstract sealed class KeyLimits extends KeyTable.State permits LimitRuns, KeyLimits.Several {

  private long latest;

  KeyLimits(long start) {
    this.latest = start;
  }

  /**
   * Makes the empty states of {@code limits}, given the time their clock starts at (earlier times
   * are taken as it); the limits' shared figures are computed once, here.
   *
   * @throws IllegalArgumentException if a limit's runs would not fit in memory
   */
  public static LongFunction<KeyLimits> factory(List<Limit> limits, boolean countRefused) {
    LimitRuns.Config[] configs = new LimitRuns.Config[limits.size()];
    for (int i = 0; i < configs.length; i++) {
      configs[i] = new LimitRuns.Config(limits.get(i), countRefused);
    }
    if (configs.length == 1) {
      LimitRuns.Config only = configs[0];
      return start -> new LimitRuns(only, start);
    }
    return start -> new Several(configs, start);
  }

  /** A key with two or more limits. */
  static final class Several extends KeyLimits {
    private final LimitRuns[] windows;
    private final boolean countRefused;

    Several(LimitRuns.Config[] configs, long start) {
      super(start);
      this.windows = new LimitRuns[configs.length];
      for (int i = 0; i < windows.length; i++) {
        windows[i] = new LimitRuns(configs[i], start);
      }
      this.countRefused = configs[0].saturate;
    }

    @Override
    int limitCount() {
      return windows.length;
    }

    @Override
    LimitRuns window(int i) {
      return windows[i];
    }

    @Override
    boolean countsRefused() {
      return countRefused;
    }
  }

  /** The number of limits. */
  abstract int limitCount();

  /** The window of the {@code i}th limit. */
  abstract LimitRuns window(int i);

  /** Whether refused attempts are recorded too. */
  abstract boolean countsRefused();

  /** The latest time seen. */
  @Override
  public final long latest() {
    return latest;
  }

  private long advance(long now) {
    if (now > latest) {
      latest = now;
    }
    for (int i = 0, n = limitCount(); i < n; i++) {
      window(i).expire(latest);
    }
    return latest;
  }

  private boolean allowsAll(long permits) {
    for (int i = 0, n = limitCount(); i < n; i++) {
      if (!window(i).allows(permits)) {
        return false;
      }
    }
    return true;
  }

  private void recordAll(long now, long permits) {
    for (int i = 0, n = limitCount(); i < n; i++) {
      window(i).record(now, permits);
    }
  }

  /** Grants and records {@code permits} at time {@code now} if every limit allows them. */
  public boolean tryAcquire(long now, long permits) {
    long t = advance(now);
    boolean granted = allowsAll(permits);
    if (granted || countsRefused()) {
      recordAll(t, permits);
    }
    return granted;
  }

  /**
   * As {@link #tryAcquire}, but returns 0 when granted and otherwise the nanoseconds until the same
   * request would be granted if nothing else arrived (always positive).
   */
  public long tryAcquireOrRetryNanos(long now, long permits) {
    long t = advance(now);
    if (allowsAll(permits)) {
      recordAll(t, permits);
      return 0;
    }
    if (countsRefused()) {
      recordAll(t, permits);
    }
    long wait = 0;
    for (int i = 0, n = limitCount(); i < n; i++) {
      wait = Math.max(wait, window(i).retryAfterNanos(t, permits));
    }
    return wait;
  }

  /** As {@link #tryAcquire}, with the figures of the binding limit. */
  public Decision decide(long now, long permits) {
    long t = advance(now);
    boolean granted = allowsAll(permits);
    if (granted || countsRefused()) {
      recordAll(t, permits);
    }
    int binding = 0;
    long retryAfter = 0;
    if (granted) {
      long least = Long.MAX_VALUE;
      for (int i = 0, n = limitCount(); i < n; i++) {
        long remaining = window(i).remaining();
        if (remaining < least) {
          least = remaining;
          binding = i;
        }
      }
    } else {
      for (int i = 0, n = limitCount(); i < n; i++) {
        long wait = window(i).retryAfterNanos(t, permits);
        if (wait > retryAfter) {
          retryAfter = wait;
          binding = i;
        }
      }
    }
    LimitRuns w = window(binding);
    Limit limit = w.limit();
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
    for (int i = 0, n = limitCount(); i < n; i++) {
      LimitRuns w = window(i);
      if (w.remaining() == 0) {
        until = Math.max(until, w.nextExpiry());
      }
    }
    return until;
  }

  /** Whether no limit counts any permit at time {@code now}. */
  @Override
  public final boolean isEmpty(long now) {
    advance(now);
    for (int i = 0, n = limitCount(); i < n; i++) {
      if (!window(i).isEmpty()) {
        return false;
      }
    }
    return true;
  }

  /** The runs stored for each limit, in the order of the limits. */
  public int[] storedRuns() {
    int[] runs = new int[limitCount()];
    for (int i = 0; i < runs.length; i++) {
      runs[i] = window(i).runCount();
    }
    return runs;
  }
}
