package io.slidingwindow.redis;

import io.slidingwindow.CalendarPeriod;
import io.slidingwindow.Ticker;
import io.slidingwindow.internal.CalendarPeriods;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;

/**
 * The limiter script's clock as one limiter sees it: the local clock (the client-time ticker, or
 * {@link Ticker#system()}) in microseconds since the limiter was built, and where the script's time
 * scale sits on the calendar. With the server's {@code TIME} the script's time is microseconds
 * since 1970; with client time it is the local clock, and the calendar clock, read once when the
 * limiter is built, gives the epoch time of its origin. The local estimate of the script's now is
 * that origin plus the local clock in both cases: exact with client time, within the two clocks'
 * difference with the server's. Immutable and thread-safe.
 */
final class ScriptTime {

  private final boolean clientTime;
  private final Ticker local;
  private final long origin;

  /** The epoch time, in microseconds, of the local clock's origin. */
  private final long anchorEpochMicros;

  /**
   * The clock of a limiter with {@code clientTime} (null for the server's {@code TIME}) and {@code
   * calendarClock}; reads both once, as the origin.
   */
  ScriptTime(Ticker clientTime, Clock calendarClock) {
    this.clientTime = clientTime != null;
    this.local = clientTime != null ? clientTime : Ticker.system();
    this.origin = local.read();
    this.anchorEpochMicros = epochMicros(calendarClock.instant());
  }

  /** Whether the script takes the local clock as its now. */
  boolean isClientTime() {
    return clientTime;
  }

  /** The local clock in µs since the limiter was built; with client time, the script's clock. */
  long localMicros() {
    return Math.floorDiv(local.read() - origin, 1000L);
  }

  /** The local estimate of the script's now, in the script's microseconds. */
  long estimateMicros() {
    return clientTime ? localMicros() : anchorEpochMicros + localMicros();
  }

  /** {@code instant} in the script's microseconds. */
  long scriptMicros(Instant instant) {
    return epochMicros(instant) - (clientTime ? anchorEpochMicros : 0);
  }

  /** The instant of the script's time {@code micros}. */
  Instant instantOf(long micros) {
    long epoch = micros + (clientTime ? anchorEpochMicros : 0);
    return Instant.ofEpochSecond(
        Math.floorDiv(epoch, 1_000_000L), Math.floorMod(epoch, 1_000_000L) * 1000);
  }

  /**
   * The least expiry of a calendar quota's key, in milliseconds: none with the server's clock, with
   * client time {@link LimiterScript#CLIENT_TIME_MIN_TTL_MILLIS} (that ticker need not run at the
   * speed of Redis's clock, which runs the expiry).
   */
  long leastExpiryMillis() {
    return clientTime ? LimiterScript.CLIENT_TIME_MIN_TTL_MILLIS : 0;
  }

  private static long epochMicros(Instant instant) {
    return Math.floorDiv(CalendarPeriods.epochNanos(instant), 1000L);
  }

  /**
   * The per-call argument of one calendar quota, {@code c,s0,s1,s2,s3} (limiter.lua, "Calendar
   * quotas"): the period {@code c} that holds the local estimate of now and the starts of periods
   * {@code c - 1} to {@code c + 2}, in the script's microseconds. The text is kept while the
   * estimate stays in period {@code c}, so the time-zone rules are read once per period, not per
   * call. Thread-safe.
   */
  static final class CalendarArgs {

    private record Computed(long from, long until, String text) {}

    private final CalendarPeriod period;
    private final ZoneId zone;
    private final ScriptTime time;
    private volatile Computed latest;

    CalendarArgs(CalendarPeriod period, ZoneId zone, ScriptTime time) {
      this.period = period;
      this.zone = zone;
      this.time = time;
    }

    /** The argument for a call sent now. */
    String text() {
      long now = time.estimateMicros();
      Computed c = latest;
      if (c != null && now >= c.from && now < c.until) {
        return c.text;
      }
      Computed computed = compute(now);
      latest = computed;
      return computed.text;
    }

    private Computed compute(long now) {
      long c = CalendarPeriods.index(period, zone, time.instantOf(now));
      long[] starts = new long[4];
      for (int j = 0; j < 4; j++) {
        starts[j] = time.scriptMicros(CalendarPeriods.start(period, zone, c - 1 + j));
      }
      String text = c + "," + starts[0] + "," + starts[1] + "," + starts[2] + "," + starts[3];
      return new Computed(starts[1], starts[2], text);
    }
  }
}
