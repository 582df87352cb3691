package io.slidingwindow.internal;

import io.slidingwindow.Decision;
import io.slidingwindow.Limit;
import io.slidingwindow.Quota;
import java.time.Duration;
import java.util.ArrayList;
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
 * <p>Memory layout. A key with one limit, the common case, is a single {@link Window} object, a
 * {@link LimitRuns} (plus its ring) or a {@link CalendarCount} (this class's fields are its latest
 * time and the table's entry flags); a key with several limits is one {@link Several} holding a
 * window per limit, whose own latest time and flags go unused; a key of a limiter with plans is a
 * {@link PlannedLimits}, whose windows follow the key's plan. The limits' figures are shared
 * through {@link Window.Config}, never copied per key. Build states with {@link #factory}.
 *
 * <p>Quota operations ({@link #peek}, {@link #reset}, {@link #refund}, {@link #refundAt}) act on
 * every window of the key at once; what each takes back is said in {@link Window}.
 *
 * <p>Not thread-safe: the owner holds a lock around every call.
 */
public abstract sealed class KeyLimits extends KeyTable.State
    permits OneWindow, KeyLimits.Several, PlannedLimits {

  private long latest;

  KeyLimits(long start) {
    this.latest = start;
  }

  /**
   * Makes the empty states of {@code limits}, given the time their clock starts at (earlier times
   * are taken as it); the limits' shared figures are computed once, here. Calendar quotas count
   * periods on a clock whose origin has the wall-clock time {@code anchorEpochNanos}.
   *
   * @throws IllegalArgumentException if a limit's runs would not fit in memory
   */
  public static LongFunction<KeyLimits> factory(
      List<Limit> limits, boolean countRefused, long anchorEpochNanos) {
    Window.Config[] configs = configs(limits, countRefused, anchorEpochNanos);
    if (configs.length == 1) {
      Window.Config only = configs[0];
      return only::create;
    }
    return start -> new Several(configs, countRefused, start);
  }

  /** The shared figures of each of {@code limits}, as {@link #factory} computes them. */
  static Window.Config[] configs(List<Limit> limits, boolean countRefused, long anchorEpochNanos) {
    return configs(limits, countRefused, anchorEpochNanos, false);
  }

  /** As {@link #configs(List, boolean, long)}, {@code planned} as {@link Window.Config#of}. */
  static Window.Config[] configs(
      List<Limit> limits, boolean countRefused, long anchorEpochNanos, boolean planned) {
    Window.Config[] configs = new Window.Config[limits.size()];
    for (int i = 0; i < configs.length; i++) {
      configs[i] = Window.Config.of(limits.get(i), countRefused, anchorEpochNanos, planned);
    }
    return configs;
  }

  /** A key with two or more limits. */
  static final class Several extends KeyLimits {
    private final Window[] windows;
    private final boolean countRefused;

    Several(Window.Config[] configs, boolean countRefused, long start) {
      super(start);
      this.windows = new Window[configs.length];
      for (int i = 0; i < windows.length; i++) {
        windows[i] = (Window) configs[i].create(start);
      }
      this.countRefused = countRefused;
    }

    @Override
    int limitCount() {
      return windows.length;
    }

    @Override
    Window window(int i) {
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
  abstract Window window(int i);

  /** The name of the key's plan, or null for none. */
  String planName() {
    return null;
  }

  /** Whether refused attempts are recorded too. */
  abstract boolean countsRefused();

  /** The latest time seen. */
  @Override
  public final long latest() {
    return latest;
  }

  /** Takes {@code now} as the latest time (unless earlier) and expires every window there. */
  final long advance(long now) {
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
    Window w = window(binding);
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
      Window w = window(i);
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

  /** What is left of every limit at time {@code now}, without taking anything. */
  public Quota peek(long now) {
    advance(now);
    return quota();
  }

  private Quota quota() {
    int n = limitCount();
    List<Quota.Usage> usages = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      Window w = window(i);
      usages.add(
          new Quota.Usage(
              w.limit(), w.count(), w.remaining(), Duration.ofNanos(w.resetAfterNanos(latest))));
    }
    return Quota.of(planName(), usages);
  }

  /** Forgets every permit recorded in every limit, at time {@code now}. */
  public void reset(long now) {
    advance(now);
    for (int i = 0, n = limitCount(); i < n; i++) {
      window(i).clear();
    }
  }

  /**
   * Takes back up to {@code permits} of the newest permits recorded in each limit ({@link
   * Window#removeNewest}) at time {@code now}, and returns what is left then.
   */
  public Quota refund(long now, long permits) {
    advance(now);
    for (int i = 0, n = limitCount(); i < n; i++) {
      window(i).removeNewest(permits);
    }
    return quota();
  }

  /**
   * Takes back, at time {@code now}, the {@code permits} a request recorded at time {@code stamp}
   * (its {@link #latest()} right after), from each limit's bucket of that time ({@link
   * Window#removeAt}).
   */
  public void refundAt(long now, long stamp, long permits) {
    advance(now);
    for (int i = 0, n = limitCount(); i < n; i++) {
      window(i).removeAt(stamp, permits);
    }
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
