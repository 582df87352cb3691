package io.slidingwindow.server.admin;

import io.slidingwindow.server.http.Exchange;
import io.slidingwindow.server.http.Router;
import java.lang.System.Logger.Level;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
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
 * or anyone's, down to DEBUG for good. The counter counts them all. Thread-safe: the set is guarded
 * by this object's lock, held for a lookup only, never while writing a line.
 */
final class AdminRefusals implements Router.Refusals {

  /** The most (reason, Host, client) triples remembered. */
  static final int MAX_REMEMBERED = 256;

  /** The most characters of a {@code Host} written and remembered. */
  static final int MAX_HOST_CHARS = 100;

  private static final System.Logger AUDIT = System.getLogger(OverrideRoutes.AUDIT_LOGGER);

  private final Consumer<String> counter;
  private final Set<String> remembered = new HashSet<>();

  /** Refusals that {@code counter} counts, by reason. */
  AdminRefusals(Consumer<String> counter) {
    this.counter = counter;
  }

  @Override
  public void refused(Exchange exchange, String reason, int status, String message) {
    refused(reason, exchange.header("Host"), exchange.clientAddress(), status, message);
  }

  /**
   * Counts and writes a refusal for {@code reason} of a request with {@code host} (a {@code Host}
   * header, or null) from {@code client}, answered {@code status} with {@code message}.
   */
  void refused(String reason, String host, String client, int status, String message) {
    counter.accept(reason);
    String shown = shown(host);
    Remembered first = remember(reason + ' ' + shown + ' ' + client);
    if (first == Remembered.FORGOTTEN) {
      AUDIT.log(
          Level.INFO,
          "admin refusals: {0} reasons, Hosts and clients remembered, the most kept; all forgotten,"
              + " so each is written at INFO once more (every refusal is counted in"
              + " slidingwindow_server_request_errors_total'{'transport=\"admin\"'}')",
          MAX_REMEMBERED);
    }
    Level level = first == Remembered.KNOWN ? Level.DEBUG : Level.INFO;
    if (AUDIT.isLoggable(level)) {
      AUDIT.log(
          level,
          "admin refused: reason={0} status={1} host={2} client={3}: {4}{5}",
          reason,
          String.valueOf(status),
          shown,
          client,
          message,
          first == Remembered.KNOWN
              ? ""
              : " (later refusals of this reason, Host and client are written at DEBUG)");
    }
  }

  private enum Remembered {
    /** Seen before: DEBUG. */
    KNOWN,
    /** Not seen before, now remembered: INFO. */
    NEW,
    /** Not seen before, remembered in place of all the others, which were forgotten: INFO. */
    FORGOTTEN
  }

  private synchronized Remembered remember(String key) {
    if (remembered.contains(key)) {
      return Remembered.KNOWN;
    }
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
