package io.slidingwindow.internal;

import io.slidingwindow.Limit;

/**
 * The state of one calendar quota: the permits recorded in the current period, with the period's
 * index and end. It is also the whole state of a key whose only limit is a calendar quota (see
 * {@link KeyLimits}).
 *
 * <p>Design. A calendar quota counts exactly, so one count per key suffices: the period it belongs
 * to (its index, see {@link CalendarPeriods}) and when that period ends, on the owner's clock. Once
 * the clock reaches the end, the count no longer counts and the next record starts the period it
 * falls in from zero. The periods' boundaries are computed by the limiter's shared {@link
 * CalendarPeriods}, once per period, not per key. About 56 bytes per key with compressed
 * references.
 *
 * <p>When refused attempts count too, the count saturates at {@code N}, which changes no decision.
 *
 * <p>Not thread-safe: callers hold a lock. Times never decrease (see {@link KeyLimits}).
 */
public final class CalendarCount extends OneWindow {

  /** One calendar quota's figures and periods, shared by every key. Immutable. */
  public static final class Config implements Window.Config {
    final Limit limit;
    final long permits;
    final CalendarPeriods periods;
    final boolean saturate;

    /**
     * The figures of {@code limit}, a calendar quota, on a clock whose origin has the wall-clock
     * time {@code anchorEpochNanos}.
     */
    public Config(Limit limit, boolean countRefused, long anchorEpochNanos) {
      this.limit = limit;
      this.permits = limit.permits();
      this.periods =
          new CalendarPeriods(
              limit.calendarPeriod().orElseThrow(),
              limit.calendarZone().orElseThrow(),
              anchorEpochNanos);
      this.saturate = countRefused;
    }

    @Override
    public Limit limit() {
      return limit;
    }

    @Override
    public CalendarCount create(long start) {
      return new CalendarCount(this, start);
    }
  }

  private final Config config;

  /** The index of the period {@link #count} belongs to; meaningless while the count is 0. */
  private long period;

  /** When that period ends. */
  private long end;

  private long count;

  /** An empty count of {@code config} whose clock starts at {@code start}. */
  public CalendarCount(Config config, long start) {
    super(start);
    this.config = config;
  }

  @Override
  boolean countsRefused() {
    return config.saturate;
  }

  @Override
  public Limit limit() {
    return config.limit;
  }

  @Override
  public void expire(long now) {
    if (count > 0 && now >= end) {
      count = 0;
    }
  }

  @Override
  public boolean allows(long permits) {
    return permits <= config.permits - count;
  }

  @Override
  public void record(long now, long permits) {
    if (count == 0) {
      CalendarPeriods.Period p = config.periods.at(now);
      period = p.index();
      end = p.end();
    }
    // Saturating never lowers a count that a change of limits left above the permits.
    count =
        config.saturate
            ? Math.max(count, Math.min(config.permits, count + permits))
            : count + permits;
  }

  @Override
  public long count() {
    return count;
  }

  @Override
  public long remaining() {
    return Math.max(0, config.permits - count);
  }

  @Override
  public long nextExpiry() {
    return count == 0 ? Long.MAX_VALUE : end;
  }

  @Override
  public long retryAfterNanos(long now, long permits) {
    return count + permits <= config.permits ? 0 : end - now;
  }

  @Override
  public long resetAfterNanos(long now) {
    return count == 0 ? 0 : end - now;
  }

  @Override
  public boolean isEmpty() {
    return count == 0;
  }

  @Override
  public int runCount() {
    return count == 0 ? 0 : 1;
  }

  @Override
  public long removeNewest(long permits) {
    long take = Math.min(count, permits);
    count -= take;
    return take;
  }

  @Override
  public long removeAt(long time, long permits) {
    if (count == 0 || config.periods.at(time).index() != period) {
      return 0; // the period of that time has ended: its permits no longer count
    }
    return removeNewest(permits);
  }

  @Override
  public void clear() {
    count = 0;
  }

  @Override
  public long runLatest(int i, long now) {
    return now;
  }

  @Override
  public long runPermits(int i) {
    return count;
  }

  /**
   * Counts what {@code source} holds in the current period: a calendar count of the same period and
   * zone in full, a sliding window's runs whose latest instant falls in the period; all of it, even
   * more than this quota's permits (see {@link PlanChange#absorbSliding} for why).
   */
  @Override
  public void absorb(Window source, long now) {
    CalendarPeriods.Period current = config.periods.at(now);
    long held = 0;
    if (source instanceof CalendarCount other) {
      boolean same = other.limit().sameWindow(config.limit) && other.period == current.index();
      held = same ? other.count : 0; // another period or zone: its permits have no known times
    } else {
      for (int i = 0, n = source.runCount(); i < n; i++) {
        if (source.runLatest(i, now) < current.start()) {
          break;
        }
        held += source.runPermits(i);
      }
    }
    if (held > 0) {
      CalendarPeriods.Period p = config.periods.at(now);
      period = p.index();
      end = p.end();
      count = held;
    }
  }
}
