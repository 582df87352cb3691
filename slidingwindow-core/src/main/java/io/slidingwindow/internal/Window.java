package io.slidingwindow.internal;

import io.slidingwindow.Limit;

/**
 * What one limit of a key records and answers: a sliding window ({@link LimitRuns}) or a calendar
 * count ({@link CalendarCount}). {@link KeyLimits} checks and records a key's windows together.
 *
 * <p>Times are nanoseconds since the owner's origin, never decreasing (see {@link KeyLimits}), and
 * every question is asked after {@link #expire} at the latest time. Not thread-safe: the owner
 * holds a lock.
 *
 * <p>Quota operations. {@link #removeNewest} and {@link #removeAt} take recorded permits back. A
 * window holds at most its limit's permits after them as before (they only remove), and never a
 * negative count: each removes no more than the runs it touches hold. The guarantee of a limit
 * holds for the permits that stay recorded: any subset of permits of which no interval of length
 * {@code W} held more than {@code N} has the same property, and a later grant is still decided on
 * every permit still recorded, so the usual proof (the last grant of an interval saw every earlier
 * recorded permit of it) applies unchanged.
 */
public sealed interface Window permits OneWindow {

  /**
   * Makes the empty windows of one limit, and holds the figures every key's window of it shares.
   * Immutable.
   */
  sealed interface Config permits LimitRuns.Config, CalendarCount.Config {

    /** The limit. */
    Limit limit();

    /**
     * An empty window whose clock starts at {@code start}; also the whole state of a key whose only
     * limit this is (both kinds of window are {@link KeyLimits}).
     */
    KeyLimits create(long start);

    /**
     * The figures of {@code limit} when refused attempts count or not; a calendar quota's periods
     * on a clock whose origin has the wall-clock time {@code anchorEpochNanos}.
     *
     * @throws IllegalArgumentException as {@link LimitRuns.Config#Config(Limit, boolean)}
     */
    static Config of(Limit limit, boolean countRefused, long anchorEpochNanos) {
      return of(limit, countRefused, anchorEpochNanos, false);
    }

    /**
     * As {@link #of(Limit, boolean, long)}; {@code planned} for the windows of a key whose limits
     * may change, which may hold more than their permits (see {@link LimitRuns.Config}).
     */
    static Config of(Limit limit, boolean countRefused, long anchorEpochNanos, boolean planned) {
      return limit.isCalendar()
          ? new CalendarCount.Config(limit, countRefused, anchorEpochNanos)
          : new LimitRuns.Config(limit, countRefused, true, planned);
    }
  }

  /** The limit this window enforces. */
  Limit limit();

  /** Forgets what no longer counts at time {@code now}. */
  void expire(long now);

  /** Whether {@code permits} more fit now. */
  boolean allows(long permits);

  /** Records {@code permits} at time {@code now}; see the implementations for what they admit. */
  void record(long now, long permits);

  /** The permits counted now. */
  long count();

  /** The permits still available now, never negative. */
  long remaining();

  /** The time at which the oldest counted permit stops counting; MAX_VALUE when none counts. */
  long nextExpiry();

  /** How long from {@code now} until {@code permits} more would fit; zero if they fit now. */
  long retryAfterNanos(long now, long permits);

  /** How long from {@code now} until no permit counted now counts any more; zero if none. */
  long resetAfterNanos(long now);

  /** Whether nothing is recorded; call {@link #expire} first to learn whether nothing counts. */
  boolean isEmpty();

  /** The runs stored now (a calendar count is one run while it holds permits). */
  int runCount();

  /**
   * Takes back up to {@code permits} of the newest recorded permits: the newest run first, then the
   * one before, and so on. Returns how many were taken back: fewer than asked when the window holds
   * fewer.
   */
  long removeNewest(long permits);

  /**
   * Takes back up to {@code permits} permits recorded in the bucket (or calendar period) that holds
   * time {@code time}: exactly the permits a request recorded at {@code time} added there, as far
   * as that bucket still holds them. Returns how many were taken back; none once the bucket has
   * left.
   */
  long removeAt(long time, long permits);

  /** Forgets every recorded permit. */
  void clear();

  /**
   * The latest instant, no later than {@code now}, of the {@code i}th newest stored run ({@code i =
   * 0} the newest): where its permits would be recorded if nothing later is known of them.
   */
  long runLatest(int i, long now);

  /** The permits of the {@code i}th newest stored run. */
  long runPermits(int i);

  /**
   * Records, into this empty window, what {@code source} holds that this window would count at time
   * {@code now}: the permits of each run as if recorded at its latest instant no later than {@code
   * now} (so that no permit leaves sooner than it would have), newest first, and no more than this
   * limit's permits in all (keeping the newest, which leave last, changes no decision: the window
   * is full either way until the older ones would have left). {@code source} is expired at {@code
   * now}.
   */
  void absorb(Window source, long now);
}
