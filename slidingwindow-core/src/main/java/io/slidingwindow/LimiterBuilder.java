package io.slidingwindow;

import io.slidingwindow.internal.CalendarPeriods;
import io.slidingwindow.internal.Checks;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * What the in-process limiter builders share: limits, ticker and whether refused attempts count.
 * Each setting may be set once: setting it again to a different value throws {@link
 * IllegalStateException}, so that a later call cannot silently undo an earlier one.
 *
 * @param <B> the concrete builder, returned by every setter
 */
abstract class LimiterBuilder<B extends LimiterBuilder<B>> {

  final List<Limit> limits = new ArrayList<>();

  /** Null until set. */
  private Ticker ticker;

  /** Null until set. */
  private Boolean countRefusedAttempts;

  /** Null until set. */
  private Clock calendarClock;

  LimiterBuilder() {}

  @SuppressWarnings("unchecked")
  private B self() {
    return (B) this;
  }

  /**
   * Adds a limit. A request is granted only if every limit allows it.
   *
   * @throws IllegalArgumentException if {@code limit} is null
   */
  public B limit(Limit limit) {
    limits.add(Checks.requireNonNull(limit, "limit"));
    return self();
  }

  /**
   * Adds each of {@code limits}.
   *
   * @throws IllegalArgumentException if {@code limits} or one of its elements is null
   */
  public B limits(Collection<Limit> limits) {
    Checks.requireNonNull(limits, "limits").forEach(this::limit);
    return self();
  }

  /**
   * Sets the clock, {@link Ticker#system()} by default. It is read once when the limiter is built
   * (its origin) and once per operation.
   *
   * @throws IllegalArgumentException if {@code ticker} is null
   * @throws IllegalStateException if another ticker was set
   */
  public B ticker(Ticker ticker) {
    Checks.requireNonNull(ticker, "ticker");
    this.ticker = Checks.setOnce(this.ticker, ticker, "ticker");
    return self();
  }

  /**
   * Sets whether refused attempts are counted as if granted (a penalty mode: a client that keeps
   * calling while refused stays refused); off by default, so that only granted permits count. The
   * memory bound per limit is the same either way.
   *
   * @throws IllegalStateException if it was set to the other value
   */
  public B countRefusedAttempts(boolean countRefusedAttempts) {
    this.countRefusedAttempts =
        Checks.setOnce(this.countRefusedAttempts, countRefusedAttempts, "countRefusedAttempts");
    return self();
  }

  /**
   * Sets the wall clock of calendar quotas ({@link Limit#calendar}), {@link Clock#systemUTC()} by
   * default. It is read once, when the limiter is built, and the limiter's ticker measures the time
   * since: the epoch time of a request is that reading plus the ticker's time since the build. So a
   * test drives calendar quotas with its fake ticker and a fixed clock, and the system ticker
   * ({@link System#nanoTime()}, which follows the gradual corrections of time synchronisation but
   * not a step of the system clock) keeps periods where they were when the limiter was built.
   *
   * @throws IllegalArgumentException if {@code clock} is null
   * @throws IllegalStateException if another clock was set
   */
  public B calendarClock(Clock clock) {
    Checks.requireNonNull(clock, "clock");
    this.calendarClock = Checks.setOnce(this.calendarClock, clock, "calendarClock");
    return self();
  }

  /** Reads the calendar clock: the epoch time, in nanoseconds, of the limiter's origin. */
  long anchorEpochNanos() {
    return CalendarPeriods.epochNanos(
        (calendarClock == null ? Clock.systemUTC() : calendarClock).instant());
  }

  /** The ticker set, or {@link Ticker#system()}. */
  Ticker ticker() {
    return ticker == null ? Ticker.system() : ticker;
  }

  /** Whether refused attempts count; false unless set. */
  boolean countsRefusedAttempts() {
    return countRefusedAttempts != null && countRefusedAttempts;
  }

  /** The validated limits, as an immutable list. */
  List<Limit> validatedLimits() {
    if (limits.isEmpty()) {
      throw new IllegalArgumentException("limits: at least one limit is required");
    }
    return List.copyOf(limits);
  }
}
