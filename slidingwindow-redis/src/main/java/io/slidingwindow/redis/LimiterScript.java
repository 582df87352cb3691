package io.slidingwindow.redis;

import io.slidingwindow.Decision;
import io.slidingwindow.Limit;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * The Java side of {@code limiter.lua}'s contract (its header is the reference): the keys and
 * arguments of a call for one limiter's limits, and the reading of its replies. Immutable.
 *
 * <p>Arguments: {@code [countRefused, ttlMillis, L, (N, W µs, p µs) per limit]} (the template),
 * then per request {@code [2 * permits + figures, now µs or ""]}. Reply per request: {@code
 * [allowed, now µs, hold µs]} without figures, {@code [allowed, now µs, remaining, retryAfter µs,
 * resetAfter µs, binding limit (1-based), hold µs]} with them; {@code allowed} is -1 (and element 2
 * a message) when a key of the request holds something else.
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
  private final String[] suffixes;
  private final String[] template;

  /**
   * The layout for {@code limits}.
   *
   * @throws IllegalArgumentException if a window or precision is not whole microseconds
   */
  LimiterScript(List<Limit> limits, boolean countRefused, boolean clientTime) {
    this.limits = List.copyOf(limits);
    this.suffixes = new String[limits.size()];
    this.template = new String[3 + 3 * limits.size()];
    template[0] = countRefused ? "1" : "0";
    template[2] = Integer.toString(limits.size());
    long ttlMicros = 0;
    for (int i = 0; i < limits.size(); i++) {
      Limit limit = limits.get(i);
      long windowMicros = windowMicros(limit);
      long precisionMicros = precisionMicros(limit);
      String suffix =
          limit.permits() + ":" + windowMicros + ":" + precisionMicros + (countRefused ? ":r" : "");
      // The same limit added twice keeps two lists, or one list would record every grant twice.
      suffixes[i] = Arrays.asList(suffixes).contains(suffix) ? suffix + ":" + i : suffix;
      template[3 + 3 * i] = Long.toString(limit.permits());
      template[4 + 3 * i] = Long.toString(windowMicros);
      template[5 + 3 * i] = Long.toString(precisionMicros);
      ttlMicros = Math.max(ttlMicros, windowMicros + precisionMicros);
    }
    long ttlMillis = (ttlMicros + 999) / 1000;
    template[1] =
        Long.toString(clientTime ? Math.max(ttlMillis, CLIENT_TIME_MIN_TTL_MILLIS) : ttlMillis);
  }

  /** The keys of one request for the id whose tagged prefix is {@code tagged}, one per limit. */
  String[] keys(String tagged) {
    String[] keys = new String[suffixes.length];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = tagged + suffixes[i];
    }
    return keys;
  }

  /** The arguments of a call holding one request. */
  String[] args(long permits, boolean figures, String now) {
    String[] args = Arrays.copyOf(template, template.length + 2);
    args[template.length] = permitsAndFigures(permits, figures);
    args[template.length + 1] = now;
    return args;
  }

  /**
   * The arguments of a call holding several requests, given as {@code [permitsAndFigures, now]}
   * pairs in the order of their keys.
   */
  String[] args(List<String[]> requests) {
    String[] args = Arrays.copyOf(template, template.length + 2 * requests.size());
    for (int r = 0; r < requests.size(); r++) {
      args[template.length + 2 * r] = requests.get(r)[0];
      args[template.length + 2 * r + 1] = requests.get(r)[1];
    }
    return args;
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
  static int binding(List<Object> reply) {
    return ((Long) reply.get(5)).intValue() - 1;
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
   * The limit's window in microseconds.
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
