package io.slidingwindow.server.admin;

import io.slidingwindow.Ticker;
import io.slidingwindow.server.http.Exchange;
import io.slidingwindow.server.http.Router;
import java.lang.System.Logger.Level;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * What the admin port does with each request it refuses before serving it (401 without the token,
 * 403 at a {@code Host} it does not answer or from a browser, 415 for a body not declared JSON):
 * counts it by reason ({@code slidingwindow_server_request_errors_total{transport="admin"}}) and
 * writes it on the audit logger ({@value OverrideRoutes#AUDIT_LOGGER}), the first refusal of each
 * reason, {@code Host} and client address at INFO and later ones at DEBUG.
 *
 * <p>Why: a dashboard left open at a refused host name polls every second; one INFO line per poll
 * would bury the log, while its first line tells the operator which name to allow. The client
 * address is part of what is remembered, so that a second client at the same {@code Host} (another
 * caller guessing the token, another browser rebound to the port) gets an INFO line of its own.
 *
 * <p>Memory is bounded: at most {@value #MAX_REMEMBERED} triples, each {@code Host} cut to {@value
 * #MAX_HOST_CHARS} characters. When a new one comes while that many are remembered, all are
 * forgotten, one INFO line says so, and the new one is written at INFO: a client that sends made-up
 * {@code Host}s can make each refusal be written at INFO once more, never push later ones, its own
 * or anyone's, down to DEBUG for good. The counter counts them all.
 *
 * <p>INFO lines are bounded in time too: at most {@value #MAX_INFO_PER_MINUTE} refusals of one
 * reason a minute (a minute starting at the first INFO line of that reason), and at most one line a
 * minute saying that the remembered ones were forgotten. Past that, refusals that would be written
 * at INFO are written at DEBUG and not remembered (so that the same one after the minute is still
 * written at INFO: a burst of twenty made-up refusals cannot hide a real one past its minute), and
 * the first refusal of that reason after the minute writes one INFO line with their number.
 * Otherwise a flood of refusals with made-up {@code Host}s, each new, writes one INFO line per
 * refusal. Thread-safe: the set and the budgets are guarded by this object's lock, held for a
 * lookup only, never while writing a line.
 */
final class AdminRefusals implements Router.Refusals {

  /** The most (reason, Host, client) triples remembered. */
  static final int MAX_REMEMBERED = 256;

  /** The most characters of a {@code Host} written and remembered. */
  static final int MAX_HOST_CHARS = 100;

  /** The most refusals of one reason written at INFO in a minute. */
  static final int MAX_INFO_PER_MINUTE = 20;

  private static final long MINUTE_NANOS = TimeUnit.MINUTES.toNanos(1);

  private static final System.Logger AUDIT = System.getLogger(OverrideRoutes.AUDIT_LOGGER);

  private final Consumer<String> counter;
  private final Ticker ticker;
  private final Set<String> remembered = new HashSet<>();
  private final Map<String, Budget> budgets = new HashMap<>(); // by reason, a handful at most
  private boolean forgottenWritten;
  private long forgottenAt;

  /** The INFO lines of one reason in its current minute, and those held back to DEBUG in it. */
  private static final class Budget {
    long start;
    int written;
    long heldBack;
  }

  /** Refusals that {@code counter} counts, by reason, minutes read on the system's clock. */
  AdminRefusals(Consumer<String> counter) {
    this(counter, Ticker.system());
  }

  /** Refusals that {@code counter} counts, by reason, minutes read on {@code ticker}. */
  AdminRefusals(Consumer<String> counter, Ticker ticker) {
    this.counter = counter;
    this.ticker = ticker;
  }

  @Override
  public void refused(Exchange exchange, String reason, int status, String message) {
    refused(reason, exchange.host(), exchange.clientAddress(), status, message);
  }

  /**
   * Counts and writes a refusal for {@code reason} of a request with {@code host} (a {@code Host}
   * header, or null) from {@code client}, answered {@code status} with {@code message}.
   */
  void refused(String reason, String host, String client, int status, String message) {
    counter.accept(reason);
    String shown = shown(host);
    Written written = remember(reason, reason + ' ' + shown + ' ' + client);
    if (written.heldBack > 0) {
      AUDIT.log(
          Level.INFO,
          "admin refusals: {0} more refusals of reason {1} in the last minute were written at DEBUG"
              + " rather than INFO, past the {2} a minute (every refusal is counted in"
              + " slidingwindow_server_request_errors_total'{'transport=\"admin\"'}')",
          String.valueOf(written.heldBack),
          reason,
          MAX_INFO_PER_MINUTE);
    }
    if (written.forgotten != null) {
      AUDIT.log(
          written.forgotten,
          "admin refusals: {0} reasons, Hosts and clients remembered, the most kept; all forgotten,"
              + " so each is written at INFO once more (every refusal is counted in"
              + " slidingwindow_server_request_errors_total'{'transport=\"admin\"'}')",
          MAX_REMEMBERED);
    }
    if (AUDIT.isLoggable(written.level)) {
      AUDIT.log(
          written.level,
          "admin refused: reason={0} status={1} host={2} client={3}: {4}{5}",
          reason,
          String.valueOf(status),
          shown,
          client,
          message,
          written.known
              ? ""
              : written.level == Level.INFO
                  ? " (later refusals of this reason, Host and client are written at DEBUG)"
                  : " (past the INFO lines of this reason for this minute)");
    }
  }

  /**
   * How one refusal is written: at {@code level}; {@code known} if its triple was remembered; the
   * level of the line saying the remembered were forgotten, or null for none; the refusals of its
   * reason held back to DEBUG in the minute that ended, to report first, or 0.
   */
  private record Written(Level level, boolean known, Level forgotten, long heldBack) {}

  private enum Remembered {
    /** Not seen before, now remembered: INFO. */
    NEW,
    /** Not seen before, remembered in place of all the others, which were forgotten: INFO. */
    FORGOTTEN
  }

  private synchronized Written remember(String reason, String key) {
    long now = ticker.read();
    Budget budget = budgets.get(reason);
    long heldBack = 0;
    if (budget != null && now - budget.start >= MINUTE_NANOS) {
      heldBack = budget.heldBack;
      budget = null;
    }
    if (remembered.contains(key)) {
      if (heldBack > 0) {
        budgets.remove(reason);
      }
      return new Written(Level.DEBUG, true, null, heldBack);
    }
    if (budget == null) {
      budget = new Budget();
      budget.start = now;
      budgets.put(reason, budget);
    }
    if (budget.written >= MAX_INFO_PER_MINUTE) {
      // Not remembered: its first line was not at INFO, so its next refusal may still be.
      budget.heldBack++;
      return new Written(Level.DEBUG, false, null, heldBack);
    }
    budget.written++;
    Level level = Level.INFO;
    Remembered first = rememberTriple(key);
    Level forgotten = null;
    if (first == Remembered.FORGOTTEN) {
      boolean again = !forgottenWritten || now - forgottenAt >= MINUTE_NANOS;
      if (again) {
        forgottenWritten = true;
        forgottenAt = now;
      }
      forgotten = again ? Level.INFO : Level.DEBUG;
    }
    return new Written(level, false, forgotten, heldBack);
  }

  private Remembered rememberTriple(String key) {
    boolean full = remembered.size() >= MAX_REMEMBERED;
    if (full) {
      remembered.clear();
    }
    remembered.add(key);
    return full ? Remembered.FORGOTTEN : Remembered.NEW;
  }

  /** How many refusals are remembered now: at most {@value #MAX_REMEMBERED}. */
  synchronized int remembered() {
    return remembered.size();
  }

  /**
   * {@code host} as written: trimmed, in lower case, cut to {@value #MAX_HOST_CHARS} characters,
   * each character outside printable ASCII as {@code ?}; {@code (none)} when null.
   */
  static String shown(String host) {
    if (host == null) {
      return "(none)";
    }
    String text = host.trim().toLowerCase(Locale.ROOT);
    StringBuilder shown = new StringBuilder(Math.min(text.length(), MAX_HOST_CHARS));
    for (int i = 0; i < text.length() && i < MAX_HOST_CHARS; i++) {
      char c = text.charAt(i);
      shown.append(c >= 0x20 && c < 0x7f ? c : '?');
    }
    return shown.toString();
  }
}
