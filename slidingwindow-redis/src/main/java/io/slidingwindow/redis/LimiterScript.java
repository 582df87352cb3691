package io.slidingwindow.redis;

import io.slidingwindow.Decision;
import io.slidingwindow.Limit;
import io.slidingwindow.Quota;
import io.slidingwindow.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The Java side of {@code limiter.lua}'s contract (its header is the reference): the keys and
 * arguments of a call for one limiter's limits, and the reading of its replies. Immutable.
 *
 * <p>Arguments: {@code [countRefused, ttlMillis, L, (N, W µs, p µs) per limit]} (the template; with
 * plans {@code countRefused} ends in {@code w}, and each limit takes its own expiry, at least
 * {@code ttlMillis}; a calendar quota's triple is {@code (N, @leastExpiryMillis, c,s0,s1,s2,s3)},
 * its last part computed per call from the local clock, see {@link ScriptTime.CalendarArgs}), then
 * per request {@code [2 * permits + figures, now µs or ""]}. Reply per request: {@code [allowed,
 * now µs, hold µs]} without figures, {@code [allowed, now µs, remaining, retryAfter µs, resetAfter
 * µs, binding limit (1-based), hold µs]} with them; {@code allowed} is -1 (and element 2 a message)
 * when a key of the request holds something else.
 */
final class LimiterScript {

  /** Windows and precisions must be below 2^50 microseconds (35 years), so sums stay exact. */
  static final long MAX_WINDOW_MICROS = 1L << 50;

  /**
   * With client time the ticker need not run at the speed of Redis's clock (a test's fake ticker
   * does not), so T is at least this long (keys then live at least this long after their newest run
   * began).
   */
  static final long CLIENT_TIME_MIN_TTL_MILLIS = 60_000;

  /**
   * The expiry the script gives a key, in milliseconds, for the script's {@code ttlMillis} T (the
   * longest window plus its bucket): T plus a quarter of T, rounded up. The script renews it once
   * per quarter of T rather than at every run, and the extra quarter keeps the newest run covered
   * (the proof is in limiter.lua, "Expiry").
   */
  static long expiryMillis(long ttlMillis) {
    return ttlMillis + (ttlMillis + 3) / 4;
  }

  private final List<Limit> limits;

  /** The key suffix of each script limit (slot), in the order the script takes them. */
  private final String[] suffixes;

  /** The slot of each limit. */
  private final int[] slotOf;

  /** The limit each slot stands for: the one with the fewest permits among those it holds. */
  private final int[] limitOf;

  private final String[] template;

  /** The per-call argument of each slot that is a calendar quota; null for a sliding window. */
  private final ScriptTime.CalendarArgs[] calendars;

  /** Whether any slot is a calendar quota. */
  private final boolean hasCalendars;

  /**
   * The layout for {@code limits}.
   *
   * @throws IllegalArgumentException if a window or precision is not whole microseconds
   */
  LimiterScript(List<Limit> limits, boolean countRefused, boolean clientTime) {
    this(
        limits,
        countRefused,
        new ScriptTime(clientTime ? Ticker.system() : null, Clock.systemUTC()),
        false);
  }

  /**
   * The layout for {@code limits}; with {@code byWindow} (a limiter with plans) a limit's key names
   * its window and precision but not its permits, so that a key whose plan changes keeps the counts
   * of the windows both plans have (see {@link io.slidingwindow.Plan}). Limits of one window and
   * precision then share their key, and the script checks it against the fewest permits among them
   * (each key records a grant once).
   *
   * <p>A calendar quota's key names its period and zone (and its permits without {@code byWindow}),
   * and its periods' boundaries come from {@code time} on every call.
   *
   * @throws IllegalArgumentException if a window or precision is not whole microseconds
   */
  LimiterScript(List<Limit> limits, boolean countRefused, ScriptTime time, boolean byWindow) {
    boolean clientTime = time.isClientTime();
    this.limits = List.copyOf(limits);
    this.slotOf = new int[limits.size()];
    List<String> keySuffixes = new ArrayList<>();
    List<Integer> slotLimits = new ArrayList<>();
    long ttlMicros = 0;
    for (int i = 0; i < limits.size(); i++) {
      Limit limit = limits.get(i);
      String suffix = suffix(limit, byWindow) + (countRefused ? ":r" : "");
      int shared = keySuffixes.indexOf(suffix);
      if (byWindow && shared >= 0) {
        slotOf[i] = shared;
        if (limit.permits() < limits.get(slotLimits.get(shared)).permits()) {
          slotLimits.set(shared, i);
        }
      } else {
        // Without plans the same limit added twice keeps two lists, as keys have always been named.
        slotOf[i] = keySuffixes.size();
        keySuffixes.add(shared >= 0 ? suffix + ":" + i : suffix);
        slotLimits.add(i);
      }
      if (!limit.isCalendar()) {
        ttlMicros = Math.max(ttlMicros, windowMicros(limit) + precisionMicros(limit));
      }
    }
    this.suffixes = keySuffixes.toArray(new String[0]);
    this.limitOf = slotLimits.stream().mapToInt(Integer::intValue).toArray();
    this.template = new String[3 + 3 * suffixes.length];
    this.calendars = new ScriptTime.CalendarArgs[suffixes.length];
    template[0] = (countRefused ? "1" : "0") + (byWindow ? "w" : "");
    template[2] = Integer.toString(suffixes.length);
    boolean anyCalendar = false;
    for (int slot = 0; slot < suffixes.length; slot++) {
      Limit limit = limits.get(limitOf[slot]);
      template[3 + 3 * slot] = Long.toString(limit.permits());
      if (limit.isCalendar()) {
        anyCalendar = true;
        calendars[slot] =
            new ScriptTime.CalendarArgs(
                limit.calendarPeriod().orElseThrow(), limit.calendarZone().orElseThrow(), time);
        template[4 + 3 * slot] = "@" + time.leastExpiryMillis();
      } else {
        template[4 + 3 * slot] = Long.toString(windowMicros(limit));
        template[5 + 3 * slot] = Long.toString(precisionMicros(limit));
      }
    }
    this.hasCalendars = anyCalendar;
    // With plans a key's calls may bring other limits: each limit then takes its own T, at least
    // this one (limiter.lua, "Expiry").
    long ttlMillis = byWindow ? 1 : (ttlMicros + 999) / 1000;
    template[1] =
        Long.toString(clientTime ? Math.max(ttlMillis, CLIENT_TIME_MIN_TTL_MILLIS) : ttlMillis);
  }

  /**
   * The key suffix of {@code limit}: {@code N:W:p} (µs), or {@code wW:p} with plans; for a calendar
   * quota {@code N:period@zone}, or {@code period@zone} with plans ({@code UTC} for the UTC offset)
   * (as in {@code month@Europe/Paris}; an {@code @} never appears in a sliding window's suffix).
   */
  private static String suffix(Limit limit, boolean byWindow) {
    String permits = byWindow ? "" : limit.permits() + ":";
    if (limit.isCalendar()) {
      return permits
          + limit.calendarPeriod().orElseThrow().name().toLowerCase(Locale.ROOT)
          + "@"
          + zoneText(limit.calendarZone().orElseThrow());
    }
    return (byWindow ? "w" : permits) + windowMicros(limit) + ":" + precisionMicros(limit);
  }

  /**
   * The text that names {@code zone} in a key. A zone of fixed rules is named by its offset, so
   * every spelling of it names one key: {@code UTC} for the UTC offset, as limit text writes it
   * ({@code Z}, {@code GMT}, {@code Etc/UTC}, {@code UTC+00:00}), {@code +01:00} for {@code
   * Etc/GMT-1} or {@code UTC+1}. A region is named by its id as written: aliases such as {@code
   * US/Eastern} and {@code America/New_York} name two keys (docs/redis.md, "Keys and memory", says
   * why they are not merged).
   */
  static String zoneText(ZoneId zone) {
    ZoneId normal = zone.normalized();
    return normal.equals(ZoneOffset.UTC) ? "UTC" : normal.getId();
  }

  /** A copy of the template of {@code length} elements, with the calendar quotas' periods now. */
  private String[] template(int length) {
    String[] args = Arrays.copyOf(template, length);
    if (hasCalendars) {
      for (int slot = 0; slot < calendars.length; slot++) {
        if (calendars[slot] != null) {
          args[5 + 3 * slot] = calendars[slot].text();
        }
      }
    }
    return args;
  }

  /**
   * The keys of one request for the id whose tagged prefix is {@code tagged}: one per limit, in
   * their order, but one for limits of a plan that share a window and precision.
   */
  String[] keys(String tagged) {
    String[] keys = new String[suffixes.length];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = tagged + suffixes[i];
    }
    return keys;
  }

  /** The arguments of a call holding one request. */
  String[] args(long permits, boolean figures, String now) {
    return args(permitsAndFigures(permits, figures), now);
  }

  /**
   * The arguments of a call holding one request or quota operation ({@link #PEEK}, {@link #RESET},
   * {@link #refund}, {@link #refundAt}).
   */
  String[] args(String request, String now) {
    String[] args = template(template.length + 2);
    args[template.length] = request;
    args[template.length + 1] = now;
    return args;
  }

  /**
   * The arguments of a call holding several requests, given as {@code [permitsAndFigures, now]}
   * pairs in the order of their keys.
   */
  String[] args(List<String[]> requests) {
    String[] args = template(template.length + 2 * requests.size());
    for (int r = 0; r < requests.size(); r++) {
      args[template.length + 2 * r] = requests.get(r)[0];
      args[template.length + 2 * r + 1] = requests.get(r)[1];
    }
    return args;
  }

  /** The per-request argument of a peek: the quota of each limit, nothing written. */
  static final String PEEK = "peek";

  /** The per-request argument of a reset: every key of the id deleted. */
  static final String RESET = "reset";

  /** The per-request argument of a refund of up to {@code permits} of the newest permits. */
  static String refund(long permits) {
    return "refund:" + permits;
  }

  /**
   * The per-request argument of a refund of up to {@code permits} from the bucket of each limit
   * that holds {@code atMicros}, the script time a reservation recorded them at.
   */
  static String refundAt(long permits, long atMicros) {
    return "refund:" + permits + ":" + atMicros;
  }

  /** Whether a quota operation's reply could not be given (a key holds something else). */
  static boolean isQuotaUndecided(List<Object> reply) {
    return (Long) reply.get(0) < 0;
  }

  /**
   * The quota a peek's or refund's reply gives, {@code [1, now µs, (used, resetAfter µs) per
   * limit]}, for a key on {@code plan} (null for the default limits).
   */
  Quota quota(String plan, List<Object> reply) {
    List<Quota.Usage> usages = new ArrayList<>(limits.size());
    for (int i = 0; i < limits.size(); i++) {
      Limit limit = limits.get(i);
      long used = (Long) reply.get(2 + 2 * slotOf[i]);
      long resetMicros = (Long) reply.get(3 + 2 * slotOf[i]);
      usages.add(
          new Quota.Usage(
              limit,
              used,
              Math.max(0, limit.permits() - used),
              Duration.ofNanos(resetMicros * 1000)));
    }
    return Quota.of(plan, usages);
  }

  /** The per-request argument that carries the permits and whether figures are wanted. */
  static String permitsAndFigures(long permits, boolean figures) {
    return Long.toString(2 * permits + (figures ? 1 : 0));
  }

  /** The time argument: {@code nowMicros} with client time, else "" (the server's TIME). */
  static String now(boolean clientTime, long nowMicros) {
    return clientTime ? Long.toString(nowMicros) : "";
  }

  /** How many values the reply to one request holds. */
  static int replySize(boolean figures) {
    return figures ? 7 : 3;
  }

  /** Whether the script could not decide the request (a key holds something else). */
  static boolean isUndecided(List<Object> reply) {
    return (Long) reply.get(0) < 0;
  }

  /** Why the script could not decide the request. */
  static String undecidedReason(List<Object> reply) {
    return String.valueOf(reply.get(2));
  }

  static boolean isAllowed(List<Object> reply) {
    return (Long) reply.get(0) == 1L;
  }

  /** The script's clock when it decided, in microseconds. */
  static long nowMicros(List<Object> reply) {
    return (Long) reply.get(1);
  }

  /** How long from the script's now the refusal holds whatever else happens, in µs; 0 if not. */
  static long holdMicros(List<Object> reply, boolean figures) {
    return (Long) reply.get(figures ? 6 : 2);
  }

  static long remaining(List<Object> reply) {
    return (Long) reply.get(2);
  }

  static long retryMicros(List<Object> reply) {
    return (Long) reply.get(3);
  }

  static long resetMicros(List<Object> reply) {
    return (Long) reply.get(4);
  }

  /** The index in the limits of the binding limit. */
  int binding(List<Object> reply) {
    return limitOf[((Long) reply.get(5)).intValue() - 1];
  }

  /** The decision a reply with figures gives. */
  Decision decision(List<Object> reply) {
    Duration resetAfter = Duration.ofNanos(resetMicros(reply) * 1000);
    Limit binding = limits.get(binding(reply));
    return isAllowed(reply)
        ? Decision.granted(remaining(reply), resetAfter, binding)
        : Decision.refused(
            remaining(reply), Duration.ofNanos(retryMicros(reply) * 1000), resetAfter, binding);
  }

  /**
   * Checks that the script can take {@code limit}: a calendar quota, or a sliding window whose
   * window and precision are whole microseconds (the window below 2^50 µs).
   *
   * @throws IllegalArgumentException otherwise
   */
  static void check(Limit limit) {
    if (!limit.isCalendar()) {
      windowMicros(limit);
      precisionMicros(limit);
    }
  }

  /**
   * The window in microseconds of {@code limit}, a sliding window.
   *
   * @throws IllegalArgumentException if not whole microseconds, or 2^50 µs or longer
   */
  static long windowMicros(Limit limit) {
    long nanos = limit.windowNanos();
    if (nanos % 1000 != 0 || nanos / 1000 >= MAX_WINDOW_MICROS) {
      throw new IllegalArgumentException(
          "window must be a whole number of microseconds below 2^50, was "
              + limit.window()
              + " in "
              + limit);
    }
    return nanos / 1000;
  }

  /**
   * The limit's precision in microseconds; 1 for an exact limit.
   *
   * @throws IllegalArgumentException if not whole microseconds
   */
  static long precisionMicros(Limit limit) {
    if (limit.isExact()) {
      return 1;
    }
    long nanos = limit.precisionNanos();
    if (nanos % 1000 != 0) {
      throw new IllegalArgumentException(
          "precision must be a whole number of microseconds (or exact), was "
              + limit.precision()
              + " in "
              + limit);
    }
    return nanos / 1000;
  }
}
